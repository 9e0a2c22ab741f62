// Single sign-on with a company's OpenID provider. Start: find the company, record an attempt
// (state, nonce, PKCE verifier; the browser keeps only a token for it) and send the browser to the
// provider. Complete: use the attempt up, check its state, exchange the code (the nonce checked),
// take the verified email, match it to an active user of the company or create one as agent when
// the company allows it, and open a session as a password does, or a two-factor challenge when
// the user has two-factor on and the provider asserted no second factor. Every refusal is written
// to the audit log with its reason; the browser learns only one of three public reasons.
import { timingSafeEqual, createHash } from "node:crypto";
import { AppError, notFound, validationError } from "@support/errors";
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import { isUuid } from "../common/validation.ts";
import { findUsersByEmail } from "../users/user.repository.ts";
import { createUser } from "../users/user.service.ts";
import type { User } from "../users/user.ts";
import { openSession, type AgentAccessContext, type LiveAgentSession } from "./agent-access.service.ts";
import { newToken, tokenHash } from "./agent-session.ts";
import { writeAudit } from "../audit/audit-log.ts";
import type { ClientSecrets } from "./client-secrets.ts";
import { newCodeVerifier, newNonce, newState, type OpenIdProviders, type ProviderClaims } from "./openid-provider.ts";
import { claimAttempt, deleteOldAttempts, findSingleSignOn, findSingleSignOnByDomain, insertAttempt, insertSingleSignOn } from "./single-sign-on.repository.ts";
import {
  emailDomainAllowed, emailDomainOf, isIssuerUrl, parseSingleSignOn, providerAssertedMfa, publicReason, safeReturnTo, SINGLE_SIGN_ON_ATTEMPT_SECONDS, type SingleSignOnConfig,
  type SingleSignOnFailure, type SingleSignOnInput,
} from "./single-sign-on.ts";
import { findTwoFactorStatus } from "./two-factor.repository.ts";
import { scopeAfterSingleSignOn } from "./two-factor.ts";
import { openTwoFactorChallenge } from "./two-factor-challenge.ts";

type Db = Kysely<ContentDatabase>;

export interface SingleSignOnContext extends AgentAccessContext {
  providers: OpenIdProviders;
  /** The client secrets, by the key a company's settings name. */
  clientSecrets: ClientSecrets;
}

/** A company's single sign-on (applying a tenant file); the secret stays in the environment, only its variable's name is kept. */
export async function configureSingleSignOn(db: Db, companyId: string, input: SingleSignOnInput): Promise<SingleSignOnConfig> {
  const config = { companyId, ...parseSingleSignOn(input) };
  await insertSingleSignOn(db, config);
  return config;
}

const NO_COMPANY = "No company signs in with single sign-on here: check the email, or sign in with the password";

/** The company to sign in to: by id, or the one company whose single sign-on lists the email's domain. */
async function companyConfigOf(db: Db, companyId: string, email: string): Promise<SingleSignOnConfig> {
  if (companyId !== "") {
    const config = isUuid(companyId) ? await findSingleSignOn(db, companyId.toLowerCase()) : undefined;
    if (!config) throw notFound(NO_COMPANY);
    return config;
  }
  const domain = emailDomainOf(email);
  const matches = domain === "" ? [] : await findSingleSignOnByDomain(db, domain);
  // Two companies claiming one domain cannot be told apart: the user names the company instead.
  if (matches.length !== 1) throw notFound(NO_COMPANY);
  return matches[0]!;
}

export interface StartSingleSignOnInput {
  companyId: string;
  email: string;
  redirectUri: string;
  returnTo: string;
  clientAddress: string;
}

export async function startSingleSignOn(ctx: SingleSignOnContext, input: StartSingleSignOnInput, now = new Date()): Promise<{ authorizationUrl: string; attemptToken: string; expiresAt: Date }> {
  const returnTo = safeReturnTo(input.returnTo);
  const issues = [];
  if (returnTo === undefined) issues.push({ path: "/query/next", message: "must be a path of the support application starting with a single /" });
  if (!isIssuerUrl(input.redirectUri)) issues.push({ path: "/redirectUri", message: "must be an https URL" });
  if (input.companyId === "" && input.email.trim() === "") issues.push({ path: "/query", message: "name the company (company) or the email (email)" });
  if (issues.length > 0) throw validationError(issues);
  const config = await companyConfigOf(ctx.db, input.companyId.trim(), input.email.trim());
  const client = await clientOf(ctx, config);
  if (!client) throw providerUnavailable();
  const attempt = { state: newState(), nonce: newNonce(), codeVerifier: newCodeVerifier() };
  let authorizationUrl;
  try {
    authorizationUrl = await ctx.providers.authorizationUrl(client, { ...attempt, redirectUri: input.redirectUri, loginHint: input.email.trim() || undefined });
  } catch {
    throw providerUnavailable();
  }
  const attemptToken = newToken();
  const expiresAt = new Date(now.getTime() + SINGLE_SIGN_ON_ATTEMPT_SECONDS * 1000);
  await ctx.db.transaction().execute(async (trx) => {
    await deleteOldAttempts(trx, new Date(now.getTime() - 86_400_000));
    await insertAttempt(trx, { ...attempt, tokenHash: tokenHash(attemptToken), companyId: config.companyId, redirectUri: input.redirectUri, returnTo: returnTo!, expiresAt, now });
  });
  return { authorizationUrl, attemptToken, expiresAt };
}

function providerUnavailable(): AppError {
  return new AppError("unavailable", "The company's identity provider cannot be reached or is not configured here; try again later, or sign in with the password");
}

async function clientOf(ctx: SingleSignOnContext, config: SingleSignOnConfig) {
  const clientSecret = await ctx.clientSecrets.get(config.clientSecretKey);
  return clientSecret ? { issuer: config.issuer, clientId: config.clientId, clientSecret } : undefined;
}

const sameText = (a: string, b: string) => {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
};

export interface CompleteSingleSignOnInput {
  attemptToken: string;
  callbackQuery: string;
  clientAddress: string;
  userAgent: string;
}

export type SingleSignOnResult = ({ token: string; live: LiveAgentSession } | { challenge: { token: string; expiresAt: Date } }) & { returnTo: string };

/** A refused single sign-on, with what the audit log records of it. */
class Refusal extends Error {
  readonly reason: SingleSignOnFailure;
  readonly who: { companyId: string | null; userId: string | null; email?: string | undefined };
  readonly extra: Record<string, unknown>;
  constructor(reason: SingleSignOnFailure, who: Refusal["who"] = { companyId: null, userId: null }, extra: Record<string, unknown> = {}) {
    super(reason);
    this.reason = reason;
    this.who = who;
    this.extra = extra;
  }
}

export async function completeSingleSignOn(ctx: SingleSignOnContext, input: CompleteSingleSignOnInput, now = new Date()): Promise<SingleSignOnResult> {
  try {
    return await complete(ctx, input, now);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const detail = { method: "sso", reason: error.reason, ...(error.who.email ? { email: error.who.email } : {}), ...error.extra };
    await writeAudit(ctx.db, { action: "sign_in.failed", companyId: error.who.companyId, userId: error.who.userId, actor: { type: "anonymous", id: null }, clientAddress: input.clientAddress, detail }, now);
    const reason = publicReason(error.reason);
    const message =
      reason === "invalid_state"
        ? "This single sign-on is unknown, expired or was used: start again"
        : reason === "provider_error"
          ? "The identity provider did not complete the sign-in: start again"
          : "Single sign-on did not find an account of this company for you: ask an admin of the company";
    throw new AppError("unauthenticated", message, { type: "SSO_FAILED", payload: { reason } });
  }
}

async function complete(ctx: SingleSignOnContext, input: CompleteSingleSignOnInput, now: Date): Promise<SingleSignOnResult> {
  const params = new URLSearchParams(input.callbackQuery.replace(/^\?/, ""));
  // Used up at once, whatever follows: an attempt serves one callback.
  const attempt = input.attemptToken === "" ? undefined : await claimAttempt(ctx.db, tokenHash(input.attemptToken), now);
  if (!attempt) throw new Refusal("invalid_state");
  const company = { companyId: attempt.companyId, userId: null };
  if (attempt.expiresAt <= now) throw new Refusal("invalid_state", company, { expired: true });
  if (!sameText(params.get("state") ?? "", attempt.state)) throw new Refusal("invalid_state", company);
  const config = await findSingleSignOn(ctx.db, attempt.companyId);
  const client = config && (await clientOf(ctx, config));
  if (!config || !client) throw new Refusal("secret_missing", company);
  const providerError = params.get("error");
  if (providerError !== null) throw new Refusal("provider_error", company, { error: providerError.slice(0, 100) });

  const callbackUrl = new URL(attempt.redirectUri);
  callbackUrl.search = params.toString();
  let claims: ProviderClaims;
  try {
    claims = await ctx.providers.exchange(client, callbackUrl, { state: attempt.state, nonce: attempt.nonce, codeVerifier: attempt.codeVerifier });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Refusal("provider_error", company, { error: typeof code === "string" ? code : (error as Error).name });
  }

  const email = claims.email?.trim() ?? "";
  if (email === "") throw new Refusal("email_missing", company);
  if (!claims.emailVerified) throw new Refusal("email_unverified", { ...company, email });
  if (!emailDomainAllowed(config, email)) throw new Refusal("email_domain_not_allowed", { ...company, email });

  const user = await userFor(ctx, config, email, claims, input.clientAddress, now);
  const twoFactor = await findTwoFactorStatus(ctx.db, user);
  const mfa = providerAssertedMfa(claims);
  // The provider's second factor stands for ours; without it, a user with two-factor on gives
  // the code as after a password.
  if (twoFactor.enabled && !mfa) return { challenge: await openTwoFactorChallenge(ctx, user, input.clientAddress, now), returnTo: attempt.returnTo };
  const opened = await openSession(ctx, user, input, { method: "sso", scope: scopeAfterSingleSignOn(twoFactor, mfa), twoFactor, providerAssertedMfa: mfa }, now);
  return { ...opened, returnTo: attempt.returnTo };
}

/** The company's active user with this email, or a new agent (just-in-time) when the company allows it. */
async function userFor(ctx: SingleSignOnContext, config: SingleSignOnConfig, email: string, claims: ProviderClaims, clientAddress: string, now: Date): Promise<User> {
  const company = { companyId: config.companyId, userId: null, email };
  const everyone = await findUsersByEmail(ctx.db, email);
  const ours = everyone.filter((user) => user.companyId === config.companyId);
  if (ours.length > 1) throw new Refusal("email_not_unique", company);
  if (ours.length === 1) {
    if (!ours[0]!.active) throw new Refusal("user_inactive", { ...company, userId: ours[0]!.id });
    return ours[0]!;
  }
  // A person another company knows by this email is not created here: their password sign-in
  // names them by email alone and would stop finding one user.
  if (everyone.length > 0) throw new Refusal("email_of_another_company", company);
  if (!config.allowJustInTimeUsers) throw new Refusal("no_user", company);
  return ctx.db.transaction().execute(async (trx) => {
    const name = claims.name?.trim() || email.slice(0, email.lastIndexOf("@"));
    const user = await createUser(trx, config.companyId, { name: name.slice(0, 200), email, role: "agent", gameIds: [] });
    await writeAudit(trx, { action: "user.created_by_single_sign_on", companyId: user.companyId, userId: user.id, actor: { type: "anonymous", id: null }, clientAddress, detail: { role: user.role } }, now);
    return user;
  });
}
