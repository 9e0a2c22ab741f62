// Single sign-on's pure rules: a company's OpenID Connect configuration (checked when a tenant
// file is applied), where the browser may land after sign-in, which emails a company's provider
// may sign in, and when the provider's word counts as a second factor.
import { optionalBoolean, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

/** How long the browser has between the redirect to the provider and the callback. */
export const SINGLE_SIGN_ON_ATTEMPT_SECONDS = 600;

/**
 * A client secret is named by its key in the service's Secret of client secrets (a file of
 * SSO_CLIENTS_DIR): the characters a Secret's key may have, starting with a letter or
 * digit, so that a name is a file of that directory and never a path out of it.
 */
const clientSecretKeyPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$/;

export function isClientSecretKey(value: string): boolean {
  return clientSecretKeyPattern.test(value);
}

export interface SingleSignOnConfig {
  companyId: string;
  issuer: string;
  clientId: string;
  clientSecretKey: string;
  allowJustInTimeUsers: boolean;
  /** Lower-case; empty: any domain. */
  emailDomains: string[];
}

export interface SingleSignOnInput {
  issuer: string;
  clientId: string;
  clientSecretKey: string;
  allowJustInTimeUsers?: boolean | undefined;
  emailDomains?: string[] | undefined;
}

const domainPattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Checks a company's single sign-on settings (paths under /singleSignOn); throws a validation error. */
export function parseSingleSignOn(input: SingleSignOnInput): Omit<SingleSignOnConfig, "companyId"> {
  const issues: ValidationIssue[] = [];
  const issuer = requiredText(input.issuer, "/singleSignOn/issuer", issues, 2000);
  if (issuer !== "" && !isIssuerUrl(issuer)) issues.push({ path: "/singleSignOn/issuer", message: "must be an https URL (http only on a loopback address), without query or fragment" });
  const clientId = requiredText(input.clientId, "/singleSignOn/clientId", issues, 500);
  const clientSecretKey = typeof input.clientSecretKey === "string" ? input.clientSecretKey : "";
  if (!isClientSecretKey(clientSecretKey)) {
    issues.push({ path: "/singleSignOn/clientSecretKey", message: "must name a key of the content service's Secret content-sso (letters, digits, _ . -; first a letter or digit)" });
  }
  const allowJustInTimeUsers = optionalBoolean(input.allowJustInTimeUsers, "/singleSignOn/allowJustInTimeUsers", issues);
  const emailDomains: string[] = [];
  (input.emailDomains ?? []).forEach((domain, index) => {
    const lower = typeof domain === "string" ? domain.trim().toLowerCase() : "";
    if (!domainPattern.test(lower)) issues.push({ path: `/singleSignOn/emailDomains/${index}`, message: "must be a domain name" });
    else if (!emailDomains.includes(lower)) emailDomains.push(lower);
  });
  throwIfInvalid(issues);
  return { issuer, clientId, clientSecretKey, allowJustInTimeUsers, emailDomains };
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** https, or http on a loopback address (a provider run on a developer's machine or in a test). */
export function isIssuerUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") return false;
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
}

/** The lower-case domain of an email; "" when it has none. */
export function emailDomainOf(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0 ? "" : email.slice(at + 1).trim().toLowerCase();
}

/** Whether the company's provider may sign in this email (its domain listed, or no list). */
export function emailDomainAllowed(config: Pick<SingleSignOnConfig, "emailDomains">, email: string): boolean {
  return config.emailDomains.length === 0 || config.emailDomains.includes(emailDomainOf(email));
}

/**
 * Where the browser may land after sign-in: a path of the support application, never another
 * origin. A single leading "/" and no "//" or "\" anywhere (browsers read "//host" and "/\host"
 * as another host), no control characters. "" means "/".
 */
export function safeReturnTo(value: string): string | undefined {
  if (value === "") return "/";
  if (value.length > 1000 || !value.startsWith("/") || value.includes("//") || value.includes("\\") || /[\u0000-\u001f\u007f]/.test(value)) return undefined;
  return value;
}

/**
 * `amr` values (RFC 8176) that say the provider checked a second factor: "mfa" (multiple
 * factors), "otp" (a one-time code), "hwk" (a hardware key). And `acr` values that say so: the
 * OpenID PAPE multi-factor policies and the phishing-resistant levels of OpenID's EAP ACR values.
 * A password alone ("pwd"), or nothing asserted, is not a second factor.
 */
export const MFA_AMR_VALUES: readonly string[] = ["mfa", "otp", "hwk"];
export const MFA_ACR_VALUES: readonly string[] = [
  "http://schemas.openid.net/pape/policies/2007/06/multi-factor",
  "http://schemas.openid.net/pape/policies/2007/06/multi-factor-physical",
  "phr",
  "phrh",
];

export function providerAssertedMfa(claims: { amr?: unknown; acr?: unknown }): boolean {
  const amr = Array.isArray(claims.amr) ? claims.amr.filter((value): value is string => typeof value === "string") : [];
  if (amr.some((value) => MFA_AMR_VALUES.includes(value))) return true;
  return typeof claims.acr === "string" && MFA_ACR_VALUES.includes(claims.acr);
}

/** Why a single sign-on was refused: the audit log's detail.reason. */
export type SingleSignOnFailure =
  | "invalid_state"
  | "provider_error"
  | "secret_missing"
  | "email_missing"
  | "email_unverified"
  | "email_domain_not_allowed"
  | "email_of_another_company"
  | "no_user"
  | "user_inactive"
  | "email_not_unique";

/** What the gateway may tell the browser: state problems, provider problems, or a refusal (the rest). */
export function publicReason(failure: SingleSignOnFailure): "invalid_state" | "provider_error" | "refused" {
  if (failure === "invalid_state") return "invalid_state";
  if (failure === "provider_error" || failure === "secret_missing") return "provider_error";
  return "refused";
}
