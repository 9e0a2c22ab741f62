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
  /** The From of the mails to the players of its email tickets; null parts: the email service's defaults. */
  emailSender: EmailSender;
  createdAt: Date;
  updatedAt: Date;
}

/** Null: "<game> Support" in the ticket's language, and the address of the email service's MAIL_FROM. */
export interface EmailSender {
  name: string | null;
  address: string | null;
}

export interface EmailSenderInput {
  senderName?: string | undefined;
  senderAddress?: string | undefined;
}

export interface NewCompanyInput {
  name: string;
  primaryLanguage?: string | undefined;
  allowImmediateDeletion?: boolean | undefined;
  autoCloseWaitingAfterHours?: number | undefined;
  apiRateLimitPerMinute?: number | undefined;
  requireTwoFactor?: boolean | undefined;
  email?: EmailSenderInput | undefined;
}

export type NewCompany = Pick<Company, "name" | "primaryLanguage" | "allowImmediateDeletion" | "autoCloseWaitingAfterHours" | "apiRateLimitPerMinute" | "requireTwoFactor" | "emailSender">;

const MAX_SENDER_NAME_LENGTH = 100;
// A plain address, no display name or comment: it goes into a From header as it is.
const plainAddress = /^[^\s@"<>(),;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** Checks a company's mail sender (paths under `/email`); absent parts are null. The name goes
 * into a mail header, so a line break in it is refused rather than removed. */
export function parseEmailSender(input: EmailSenderInput | undefined, issues: ValidationIssue[]): EmailSender {
  const sender: EmailSender = { name: null, address: null };
  if (input === undefined || input === null) return sender;
  if (typeof input !== "object") {
    issues.push({ path: "/email", message: "must be an object" });
    return sender;
  }
  const { senderName, senderAddress } = input;
  if (senderName !== undefined) {
    if (typeof senderName !== "string" || senderName.trim() === "" || senderName.length > MAX_SENDER_NAME_LENGTH || /[\r\n]/.test(senderName)) {
      issues.push({ path: "/email/senderName", message: `must be 1-${MAX_SENDER_NAME_LENGTH} characters without line breaks, not blank` });
    } else sender.name = senderName;
  }
  if (senderAddress !== undefined) {
    if (typeof senderAddress !== "string" || senderAddress.length > 254 || !plainAddress.test(senderAddress)) {
      issues.push({ path: "/email/senderAddress", message: "must be a plain email address (name@example.com)" });
    } else sender.address = senderAddress;
  }
  return sender;
}

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
  const emailSender = parseEmailSender(input.email, issues);
  throwIfInvalid(issues);
  return { name, primaryLanguage: primaryLanguage as LanguageCode, allowImmediateDeletion, autoCloseWaitingAfterHours: hours, apiRateLimitPerMinute, requireTwoFactor, emailSender };
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
