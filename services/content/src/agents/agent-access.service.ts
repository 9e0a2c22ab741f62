// Sign-in to the support application: passwords, sessions, throttling and the audit log. Each
// change writes its audit entry, and each ending of sessions its domain event, in the same
// transaction.
import { writeEvents } from "@support/bus";
import { awayWithoutSessions } from "../routing/routing.service.ts";
import { newEvent } from "@support/events";
import { AppError, failedPrecondition, notFound, permissionDenied, unauthenticated, validationError } from "@support/errors";
import type { Kysely } from "kysely";
import type { ContentConfig } from "../config.ts";
import type { ContentDatabase } from "../database.ts";
import { findUser, findUsersByEmail } from "../users/user.repository.ts";
import type { User } from "../users/user.ts";
import { isUuid } from "../common/validation.ts";
import {
  clearFailureCount, endSessions, findFailureCounts, findPasswordHash, findSessionByTokenHash, insertSession, saveFailureCount, touchSession,
  upsertPasswordHash,
} from "./agent-access.repository.ts";
import { isLive, newToken, openingClocks, tokenHash, touchedIdleExpiry, type AgentSessionRecord, type SessionEndReason, type SessionLimits } from "./agent-session.ts";
import { listAudit, writeAudit, type AuditAction, type AuditFilter } from "../audit/audit-log.ts";
import { decoyPasswordHash, hashPassword, passwordIssues, verifyPassword } from "./password.ts";
import { accountKey, addressKey, afterFailure, lockedForSeconds, type FailureCount, type ThrottleRule } from "./sign-in-throttle.ts";
import { findTwoFactorStatus } from "./two-factor.repository.ts";
import { scopeAfterPassword, type SessionScope, type TwoFactorStatus } from "./two-factor.ts";
import { openTwoFactorChallenge } from "./two-factor-challenge.ts";

type Db = Kysely<ContentDatabase>;

export interface AgentAccessContext {
  db: Db;
  config: Pick<
    ContentConfig,
    | "AGENT_SESSION_IDLE_SECONDS" | "AGENT_SESSION_MAX_SECONDS" | "SIGN_IN_MAX_FAILURES_PER_ACCOUNT" | "SIGN_IN_MAX_FAILURES_PER_ADDRESS"
    | "SIGN_IN_FAILURE_WINDOW_MINUTES" | "SIGN_IN_LOCK_MINUTES"
  >;
}

/** A live session with its user. */
export interface LiveAgentSession {
  session: AgentSessionRecord;
  user: User;
  twoFactor: TwoFactorStatus;
}

/** What a right password leads to: a session, or (two-factor on) a challenge for the code. */
export type SignInResult = { token: string; live: LiveAgentSession } | { challenge: { token: string; expiresAt: Date } };

/** The one answer to every wrong email, wrong password, inactive user and user without a password. */
const WRONG_CREDENTIALS = "The email or password is wrong";

function limitsOf(config: AgentAccessContext["config"]): SessionLimits {
  return { idleMs: config.AGENT_SESSION_IDLE_SECONDS * 1000, maxMs: config.AGENT_SESSION_MAX_SECONDS * 1000 };
}

function rulesOf(config: AgentAccessContext["config"]): { account: ThrottleRule; address: ThrottleRule } {
  const windowMs = config.SIGN_IN_FAILURE_WINDOW_MINUTES * 60_000;
  const lockMs = config.SIGN_IN_LOCK_MINUTES * 60_000;
  return {
    account: { maxFailures: config.SIGN_IN_MAX_FAILURES_PER_ACCOUNT, windowMs, lockMs },
    address: { maxFailures: config.SIGN_IN_MAX_FAILURES_PER_ADDRESS, windowMs, lockMs },
  };
}

export function locked(retryAfterSeconds: number): AppError {
  return new AppError("rate_limited", `Too many failed sign-ins: try again in ${retryAfterSeconds} seconds`, {
    type: "SIGN_IN_LOCKED",
    payload: { retryAfterSeconds },
  });
}

/** The one user of this email who may sign in with a password, with the hash; undefined when none (or several). */
async function signInCandidate(db: Db, email: string): Promise<{ user: User; passwordHash: string } | undefined> {
  const users = (await findUsersByEmail(db, email)).filter((user) => user.active);
  if (users.length !== 1) return undefined;
  const passwordHash = await findPasswordHash(db, users[0]!.id);
  return passwordHash === undefined ? undefined : { user: users[0]!, passwordHash };
}

export interface SignInInput {
  email: string;
  password: string;
  clientAddress: string;
  userAgent: string;
}

/**
 * Opens a session for a right email and password. A locked account or address is refused before
 * the password is checked; an unknown email costs as much time as a wrong password, and gets the
 * same answer.
 */
export async function beginSignIn(ctx: AgentAccessContext, input: SignInInput, now = new Date()): Promise<SignInResult> {
  const email = input.email.trim();
  const keys = { account: accountKey(email), address: addressKey(input.clientAddress || "unknown") };
  const counts = await findFailureCounts(ctx.db, [keys.account, keys.address]);
  const wait = Math.max(lockedForSeconds(counts.get(keys.account), now), lockedForSeconds(counts.get(keys.address), now));
  const candidate = email === "" ? undefined : await signInCandidate(ctx.db, email);
  if (wait > 0) {
    await writeAudit(ctx.db, { action: "sign_in.refused_locked", companyId: candidate?.user.companyId ?? null, userId: candidate?.user.id ?? null, actor: { type: "anonymous", id: null }, clientAddress: input.clientAddress, detail: { retryAfterSeconds: wait } }, now);
    throw locked(wait);
  }
  const passwordOk = candidate ? await verifyPassword(candidate.passwordHash, input.password) : (await verifyPassword(await decoyPasswordHash(), input.password), false);
  if (!candidate || !passwordOk) {
    await recordSignInFailure(ctx, { email, clientAddress: input.clientAddress, user: candidate?.user }, "sign_in.failed", now, undefined, counts);
    throw unauthenticated(WRONG_CREDENTIALS);
  }
  const { user } = candidate;
  const twoFactor = await findTwoFactorStatus(ctx.db, user);
  // The account's failure count is cleared only once the whole sign-in succeeds: a right password
  // followed by wrong codes must not start the count again.
  if (twoFactor.enabled) return { challenge: await openTwoFactorChallenge(ctx, user, input.clientAddress, now) };
  return openSession(ctx, user, input, { method: "password", scope: scopeAfterPassword(twoFactor), twoFactor }, now);
}

/**
 * Opens a session for an email and password, refusing a user who has two-factor on (their
 * sign-in goes on with beginSignIn's challenge): for callers that cannot ask for a code.
 */
export async function signIn(ctx: AgentAccessContext, input: SignInInput, now = new Date()): Promise<{ token: string; live: LiveAgentSession }> {
  const result = await beginSignIn(ctx, input, now);
  if ("challenge" in result) throw failedPrecondition("This user signs in with two-factor", { type: "TWO_FACTOR_REQUIRED" });
  return result;
}

/**
 * Counts a failed sign-in (a wrong password, or a wrong or replayed second factor) against the
 * account and the address, writes the audit log, and throws the lockout when it locked either;
 * returns otherwise.
 */
export async function recordSignInFailure(
  ctx: AgentAccessContext,
  who: { email: string; clientAddress: string; user: Pick<User, "id" | "companyId"> | undefined },
  action: Extract<AuditAction, "sign_in.failed" | "two_factor.failed">,
  now: Date,
  detail?: Record<string, unknown>,
  counts?: Map<string, FailureCount>,
): Promise<void> {
  const keys = { account: accountKey(who.email), address: addressKey(who.clientAddress || "unknown") };
  const known = counts ?? (await findFailureCounts(ctx.db, [keys.account, keys.address]));
  const rules = rulesOf(ctx.config);
  const lockedOut = await ctx.db.transaction().execute(async (trx) => {
    const account = afterFailure(known.get(keys.account), now, rules.account);
    const address = afterFailure(known.get(keys.address), now, rules.address);
    await saveFailureCount(trx, keys.account, account);
    await saveFailureCount(trx, keys.address, address);
    const audit = { companyId: who.user?.companyId ?? null, userId: who.user?.id ?? null, actor: { type: "anonymous" as const, id: null }, clientAddress: who.clientAddress };
    await writeAudit(trx, { ...audit, action, ...(detail ? { detail } : {}) }, now);
    const lockedKeys = [account.lockedUntil && "account", address.lockedUntil && "address"].filter(Boolean);
    if (lockedKeys.length > 0) await writeAudit(trx, { ...audit, action: "sign_in.locked_out", detail: { locked: lockedKeys } }, now);
    return lockedKeys.length > 0;
  });
  if (lockedOut) throw locked(ctx.config.SIGN_IN_LOCK_MINUTES * 60);
}

/** Seconds the account or address must still wait (0: not locked). */
export async function signInLockedFor(ctx: AgentAccessContext, email: string, clientAddress: string, now: Date): Promise<number> {
  const keys = { account: accountKey(email), address: addressKey(clientAddress || "unknown") };
  const counts = await findFailureCounts(ctx.db, [keys.account, keys.address]);
  return Math.max(lockedForSeconds(counts.get(keys.account), now), lockedForSeconds(counts.get(keys.address), now));
}

/**
 * Opens a session (a new token) once every factor was right: the account's failure count is
 * cleared and the sign-in written to the audit log. `trx` lets a caller open it in its own
 * transaction (a challenge used up, a session replaced).
 */
export async function openSession(
  ctx: AgentAccessContext,
  user: User,
  input: { clientAddress: string; userAgent: string },
  how: { method: "password" | "totp" | "recovery_code" | "two_factor_enrolment" | "sso"; scope: SessionScope; twoFactor: TwoFactorStatus; providerAssertedMfa?: boolean },
  now: Date,
  trx?: Db,
): Promise<{ token: string; live: LiveAgentSession }> {
  const token = newToken();
  const open = async (db: Db) => {
    await clearFailureCount(db, accountKey(user.email));
    const clocks = openingClocks(now, limitsOf(ctx.config));
    const opened = await insertSession(db, {
      tokenHash: tokenHash(token), csrfToken: newToken(), userId: user.id, companyId: user.companyId, scope: how.scope,
      clientAddress: input.clientAddress || null, userAgent: input.userAgent.slice(0, 500) || null, now, ...clocks,
    });
    if (how.method !== "two_factor_enrolment") {
      const detail = {
        method: how.method, sessionId: opened.id, ...(how.scope === "full" ? {} : { scope: how.scope }),
        ...(how.providerAssertedMfa === undefined ? {} : { providerAssertedMfa: how.providerAssertedMfa }),
      };
      await writeAudit(db, { action: "sign_in.succeeded", companyId: user.companyId, userId: user.id, actor: { type: "user", id: user.id }, clientAddress: input.clientAddress, detail }, now);
    }
    return opened;
  };
  const session = trx ? await open(trx) : await ctx.db.transaction().execute(open);
  return { token, live: { session, user, twoFactor: how.twoFactor } };
}

/** The live session of a token (its idle clock moved on), or UNAUTHENTICATED. */
export async function getAgentSession(ctx: AgentAccessContext, token: string, now = new Date()): Promise<LiveAgentSession> {
  const session = token === "" ? undefined : await findSessionByTokenHash(ctx.db, tokenHash(token));
  if (!session || !isLive(session, now)) throw unauthenticated("Not signed in, or the session ended");
  const user = await findUser(ctx.db, session.userId);
  if (!user?.active) throw unauthenticated("Not signed in, or the session ended");
  const twoFactor = await findTwoFactorStatus(ctx.db, user);
  const idleExpiresAt = touchedIdleExpiry(session, now, limitsOf(ctx.config));
  if (idleExpiresAt) {
    await touchSession(ctx.db, session.id, now, idleExpiresAt);
    return { session: { ...session, lastSeenAt: now, idleExpiresAt }, user, twoFactor };
  }
  return { session, user, twoFactor };
}

export async function endAndAnnounce(trx: Db, user: Pick<User, "id" | "companyId">, which: { sessionId: string } | { userId: string }, reason: SessionEndReason, now: Date): Promise<string[]> {
  const ended = await endSessions(trx, which, reason, now);
  if (ended.length > 0) {
    await writeEvents(trx, [newEvent("content.agent_sessions.ended", user.companyId, { userId: user.id, sessionIds: ended, reason })]);
    await awayWithoutSessions(trx, user, reason === "deactivated" ? "deactivated" : "signed_out", now);
  }
  return ended;
}

/** Ends the token's session; an unknown or ended one changes nothing. */
export async function signOut(ctx: AgentAccessContext, token: string, clientAddress: string, now = new Date()): Promise<void> {
  const session = token === "" ? undefined : await findSessionByTokenHash(ctx.db, tokenHash(token));
  if (!session || session.endedAt !== null) return;
  await ctx.db.transaction().execute(async (trx) => {
    const ended = await endAndAnnounce(trx, { id: session.userId, companyId: session.companyId }, { sessionId: session.id }, "signed_out", now);
    if (ended.length > 0) await writeAudit(trx, { action: "session.signed_out", companyId: session.companyId, userId: session.userId, actor: { type: "user", id: session.userId }, clientAddress, detail: { sessionId: session.id } }, now);
  });
}

/** Ends every session of the token's user; the token must be live. */
export async function signOutEverywhere(ctx: AgentAccessContext, token: string, clientAddress: string, now = new Date()): Promise<number> {
  const { session } = await getAgentSession(ctx, token, now);
  return ctx.db.transaction().execute(async (trx) => {
    const ended = await endAndAnnounce(trx, { id: session.userId, companyId: session.companyId }, { userId: session.userId }, "signed_out_everywhere", now);
    await writeAudit(trx, { action: "session.signed_out_everywhere", companyId: session.companyId, userId: session.userId, actor: { type: "user", id: session.userId }, clientAddress, detail: { ended: ended.length } }, now);
    return ended.length;
  });
}

/**
 * Sets the password of the active user with this email (an operator's act), after the rule;
 * the user's sessions end.
 */
export async function setUserPassword(ctx: Pick<AgentAccessContext, "db">, email: string, password: string, now = new Date()): Promise<User> {
  const users = (await findUsersByEmail(ctx.db, email.trim())).filter((user) => user.active);
  if (users.length === 0) throw notFound("no active user has this email");
  if (users.length > 1) {
    throw failedPrecondition("Users of several companies have this email; sign-in names a user by email alone, so none of them can have a password", { type: "EMAIL_NOT_UNIQUE" });
  }
  const user = users[0]!;
  const issues = passwordIssues(password, user);
  if (issues.length > 0) throw validationError(issues, "The password does not meet the rule");
  const passwordHash = await hashPassword(password);
  await ctx.db.transaction().execute(async (trx) => {
    await upsertPasswordHash(trx, user, passwordHash);
    await endAndAnnounce(trx, user, { userId: user.id }, "password_changed", now);
    await writeAudit(trx, { action: "password.set", companyId: user.companyId, userId: user.id, actor: { type: "operator", id: null } }, now);
  });
  return user;
}

/** Most entries of one page of the audit log. */
export const MAX_AUDIT_PAGE = 200;

/**
 * A page of the audit log of the token's company, newest first: for an admin only. `before`
 * is the id of the previous page's last entry.
 */
export async function readAuditLog(ctx: AgentAccessContext, token: string, page: { limit: number; before: string; filter?: AuditFilter }, now = new Date()) {
  const { user, session } = await getAgentSession(ctx, token, now);
  if (session.scope !== "full") throw permissionDenied("Turn two-factor on first: this session may only enrol");
  if (user.role !== "admin") throw permissionDenied("Only the company's admins read the audit log");
  const issues = [];
  if (!Number.isInteger(page.limit) || page.limit < 0 || page.limit > MAX_AUDIT_PAGE) issues.push({ path: "/query/limit", message: `must be an integer from 1 to ${MAX_AUDIT_PAGE}` });
  if (page.before !== "" && !/^[1-9][0-9]{0,18}$/.test(page.before)) issues.push({ path: "/query/before", message: "is not an entry id of this log" });
  const filter = page.filter ?? {};
  if (filter.action !== undefined && !/^[a-z_]+(\.[a-z_]*)?$/.test(filter.action)) issues.push({ path: "/query/action", message: "must be an action (api_key.created) or a family of them (api_key.)" });
  if (filter.actorId !== undefined && !isUuid(filter.actorId)) issues.push({ path: "/query/actorId", message: "must be a user id" });
  if (filter.since && filter.until && filter.since >= filter.until) issues.push({ path: "/query/until", message: "must be after since" });
  if (issues.length > 0) throw validationError(issues);
  const limit = page.limit || 50;
  const entries = await listAudit(ctx.db, user.companyId, { limit: limit + 1, before: page.before || undefined, filter });
  return { entries: entries.slice(0, limit), nextBefore: entries.length > limit ? entries[limit - 1]!.id : undefined };
}
