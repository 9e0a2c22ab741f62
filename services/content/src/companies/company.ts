// A company is a tenant: everything else belongs to one, and an API key sees one company's data
// only. Its settings steer other services: the primary language of announcements, immediate
// deletion, auto-close timing.
import { isLanguageCode, type LanguageCode } from "../common/language.ts";
import { optionalBoolean, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

export interface Company {
  id: string;
  name: string;
  primaryLanguage: LanguageCode;
  allowImmediateDeletion: boolean;
  autoCloseWaitingAfterHours: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewCompanyInput {
  name: string;
  primaryLanguage?: string | undefined;
  allowImmediateDeletion?: boolean | undefined;
  autoCloseWaitingAfterHours?: number | undefined;
}

export type NewCompany = Pick<Company, "name" | "primaryLanguage" | "allowImmediateDeletion" | "autoCloseWaitingAfterHours">;

export const DEFAULT_PRIMARY_LANGUAGE: LanguageCode = "en";
export const DEFAULT_AUTO_CLOSE_WAITING_AFTER_HOURS = 168;

/** Checks and completes a new company's settings with the defaults (primary language `en`, no
 * immediate deletion, auto-close of waiting tickets after 168 hours); throws a validation error. */
export function parseNewCompany(input: NewCompanyInput): NewCompany {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues);
  const primaryLanguage = input.primaryLanguage ?? DEFAULT_PRIMARY_LANGUAGE;
  if (!isLanguageCode(primaryLanguage)) issues.push({ path: "/primaryLanguage", message: "must be a language code" });
  const hours = input.autoCloseWaitingAfterHours ?? DEFAULT_AUTO_CLOSE_WAITING_AFTER_HOURS;
  if (typeof hours !== "number" || !Number.isFinite(hours) || hours <= 0) {
    issues.push({ path: "/autoCloseWaitingAfterHours", message: "must be a number greater than 0" });
  }
  const allowImmediateDeletion = optionalBoolean(input.allowImmediateDeletion, "/allowImmediateDeletion", issues);
  throwIfInvalid(issues);
  return { name, primaryLanguage: primaryLanguage as LanguageCode, allowImmediateDeletion, autoCloseWaitingAfterHours: hours };
}

/** The data of content.company.* events. */
export function companyEventData(company: Company) {
  return {
    id: company.id,
    name: company.name,
    primaryLanguage: company.primaryLanguage,
    allowImmediateDeletion: company.allowImmediateDeletion,
    autoCloseWaitingAfterHours: company.autoCloseWaitingAfterHours,
    createdAt: company.createdAt.toISOString(),
    updatedAt: company.updatedAt.toISOString(),
  };
}
