// A company is a tenant: everything else belongs to one, and an API key sees one company's data
// only. Its settings steer other services: the primary language of announcements, immediate
// deletion, auto-close timing, the API rate limit.
import { isLanguageCode, type LanguageCode } from "../common/language.ts";
import { optionalBoolean, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

export interface Company {
  id: string;
  name: string;
  primaryLanguage: LanguageCode;
  allowImmediateDeletion: boolean;
  autoCloseWaitingAfterHours: number;
  /** Requests per minute of all the company's API keys together; null: the gateway's default. */
  apiRateLimitPerMinute: number | null;
  /** Every user must sign in with two-factor; one without it gets a session limited to enrolment. */
  requireTwoFactor: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewCompanyInput {
  name: string;
  primaryLanguage?: string | undefined;
  allowImmediateDeletion?: boolean | undefined;
  autoCloseWaitingAfterHours?: number | undefined;
  apiRateLimitPerMinute?: number | undefined;
  requireTwoFactor?: boolean | undefined;
}

export type NewCompany = Pick<Company, "name" | "primaryLanguage" | "allowImmediateDeletion" | "autoCloseWaitingAfterHours" | "apiRateLimitPerMinute" | "requireTwoFactor">;

/** Highest API rate limit per minute a company or key may be given (a sanity bound, 1,000 per second for a minute ten times over). */
export const MAX_API_RATE_LIMIT_PER_MINUTE = 10_000_000;

/** An optional requests-per-minute limit: absent is null (the default applies), else a positive integer. */
export function optionalRateLimit(value: unknown, path: string, issues: ValidationIssue[]): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_API_RATE_LIMIT_PER_MINUTE) {
    issues.push({ path, message: `must be an integer from 1 to ${MAX_API_RATE_LIMIT_PER_MINUTE}` });
    return null;
  }
  return value;
}

export const DEFAULT_PRIMARY_LANGUAGE: LanguageCode = "en";
export const DEFAULT_AUTO_CLOSE_WAITING_AFTER_HOURS = 168;

/** Checks and completes a new company's settings with the defaults (primary language `en`, no
 * immediate deletion, auto-close of waiting tickets after 168 hours, two-factor not required); throws a validation error. */
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
  const apiRateLimitPerMinute = optionalRateLimit(input.apiRateLimitPerMinute, "/apiRateLimitPerMinute", issues);
  const requireTwoFactor = optionalBoolean(input.requireTwoFactor, "/requireTwoFactor", issues);
  throwIfInvalid(issues);
  return { name, primaryLanguage: primaryLanguage as LanguageCode, allowImmediateDeletion, autoCloseWaitingAfterHours: hours, apiRateLimitPerMinute, requireTwoFactor };
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
