// Two-factor use cases: enrolling (a new secret, then a code that confirms it and gives the
// recovery codes), the second step of a sign-in (a challenge, then a TOTP or recovery code), and
// an operator's reset. A wrong or replayed code counts as a failed sign-in; every step is written
// to the audit log in the transaction of what it records. The secret is sealed before it is
// stored and never logged.
import { conflict, failedPrecondition, notFound, unauthenticated, validationError } from "@support/errors";
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import { findUser, findUsersByEmail } from "../users/user.repository.ts";
import { isUuid } from "../common/validation.ts";
import type { User } from "../users/user.ts";
import { endAndAnnounce, getAgentSession, openSession, recordSignInFailure, signInLockedFor, locked, type AgentAccessContext, type LiveAgentSession } from "./agent-access.service.ts";
import { tokenHash } from "./agent-session.ts";
import { OPERATOR_ORIGIN, writeAudit, type AuditOrigin } from "../audit/audit-log.ts";
import type { TotpSecretBox } from "./two-factor-secret-box.ts";
import {
  claimTotpStep, countUnusedRecoveryCodes, deleteTwoFactor, findChallenge, findTwoFactor, markTwoFactorEnabled,
  replaceRecoveryCodes, upsertPendingTwoFactor, useChallenge, useRecoveryCode,
} from "./two-factor.repository.ts";
import {
  isTotpCode, matchingTotpStep, newRecoveryCodes, newTotpSecret, normaliseRecoveryCode, otpauthUri, recoveryCodeHash,
} from "./two-factor.ts";

type Db = Kysely<ContentDatabase>;

export interface TwoFactorContext extends AgentAccessContext {
  secrets: TotpSecretBox;
  /** The issuer authenticator apps show (TOTP_ISSUER). */
  issuer: string;
}

/** The one answer to an unknown, used or expired challenge. */
const CHALLENGE_GONE = "The sign-in expired or was already completed: sign in again with the email and password";
const WRONG_CODE = "The code is wrong";

export interface TwoFactorSignInInput {
  challenge: string;
  code: string;
  clientAddress: string;
  userAgent: string;
}

/**
 * The second step of a sign-in: a TOTP code of the current step ± 1, not of a step used before,
 * or an unused recovery code. A lock on the account or address is checked first; a wrong code
 * counts toward it. The challenge is used up by the success (a wrong code leaves it until it
 * expires, so a mistyped code can be typed again).
 */
export async function completeTwoFactorSignIn(
  ctx: TwoFactorContext,
  input: TwoFactorSignInInput,
  now = new Date(),
): Promise<{ token: string; live: LiveAgentSession; recoveryCodeUsed: boolean; recoveryCodesLeft: number }> {
  const challenge = input.challenge === "" ? undefined : await findChallenge(ctx.db, tokenHash(input.challenge));
  if (!challenge || challenge.usedAt !== null || challenge.expiresAt <= now) throw unauthenticated(CHALLENGE_GONE);
  const user = await findUser(ctx.db, challenge.userId);
  const twoFactor = user?.active ? await findTwoFactor(ctx.db, user.id) : undefined;
  if (!user || !twoFactor?.enabledAt) throw unauthenticated(CHALLENGE_GONE);
  const audit = { companyId: user.companyId, userId: user.id, clientAddress: input.clientAddress };

  const wait = await signInLockedFor(ctx, user.email, input.clientAddress, now);
  if (wait > 0) {
    await writeAudit(ctx.db, { ...audit, action: "sign_in.refused_locked", actor: { type: "anonymous", id: null }, detail: { retryAfterSeconds: wait, step: "two_factor" } }, now);
    throw locked(wait);
  }

  const code = input.code.trim();
  const fail = async (reason: string): Promise<never> => {
    await recordSignInFailure(ctx, { email: user.email, clientAddress: input.clientAddress, user }, "two_factor.failed", now, { reason });
    throw unauthenticated(WRONG_CODE);
  };

  return ctx.db.transaction().execute(async (trx) => {
    let method: "totp" | "recovery_code";
    if (isTotpCode(code)) {
      const step = matchingTotpStep(ctx.secrets.open(twoFactor.secretSealed, user.id), code, now);
      if (step === undefined) return fail("wrong_code");
      if (!(await claimTotpStep(trx, user.id, step))) return fail("replayed_code");
      method = "totp";
    } else {
      const normalised = normaliseRecoveryCode(code);
      if (normalised === undefined || !(await useRecoveryCode(trx, user.id, recoveryCodeHash(user.id, normalised), now))) return fail("wrong_recovery_code");
      method = "recovery_code";
    }
    if (!(await useChallenge(trx, challenge.id, now))) throw unauthenticated(CHALLENGE_GONE);
    const recoveryCodesLeft = await countUnusedRecoveryCodes(trx, user.id);
    if (method === "recovery_code") {
      await writeAudit(trx, { ...audit, action: "two_factor.recovery_code_used", actor: { type: "user", id: user.id }, detail: { left: recoveryCodesLeft } }, now);
    }
    const twoFactorStatus = { enabled: true, required: await findCompanyRequirement(trx, user.companyId) };
    const opened = await openSession(ctx, user, input, { method, scope: "full", twoFactor: twoFactorStatus }, now, trx);
    return { ...opened, recoveryCodeUsed: method === "recovery_code", recoveryCodesLeft };
  });
}

/** A new TOTP secret for the session's user (an unconfirmed earlier one is replaced); refused when two-factor is on. */
export async function startTwoFactorEnrolment(ctx: TwoFactorContext, sessionToken: string, clientAddress: string, now = new Date()): Promise<{ otpauthUri: string; secret: string }> {
  const { user } = await getAgentSession(ctx, sessionToken, now);
  const existing = await findTwoFactor(ctx.db, user.id);
  if (existing?.enabledAt) {
    throw failedPrecondition("Two-factor is on already: an operator can reset it (pnpm admin users reset-2fa) before a new enrolment", { type: "TWO_FACTOR_ALREADY_ENABLED" });
  }
  const secret = newTotpSecret();
  await ctx.db.transaction().execute(async (trx) => {
    await upsertPendingTwoFactor(trx, user, ctx.secrets.seal(secret, user.id), now);
    await writeAudit(trx, { action: "two_factor.enrolment_started", companyId: user.companyId, userId: user.id, actor: { type: "user", id: user.id }, clientAddress }, now);
  });
  return { otpauthUri: otpauthUri(secret, user.email, ctx.issuer), secret };
}

/**
 * Turns two-factor on with a code of the enrolment's secret: ten recovery codes (returned once,
 * stored hashed), and the session the enrolment was made in replaced by a new full one (a new
 * token: a session limited to enrolment never becomes a full one under the same id). The code's
 * step counts as used.
 */
export async function confirmTwoFactorEnrolment(
  ctx: TwoFactorContext,
  input: { sessionToken: string; code: string; clientAddress: string; userAgent: string },
  now = new Date(),
): Promise<{ recoveryCodes: string[]; token: string; live: LiveAgentSession }> {
  const { user, session } = await getAgentSession(ctx, input.sessionToken, now);
  const pending = await findTwoFactor(ctx.db, user.id);
  if (pending?.enabledAt) throw failedPrecondition("Two-factor is on already", { type: "TWO_FACTOR_ALREADY_ENABLED" });
  if (!pending) throw failedPrecondition("No enrolment was started: POST /agent-api/two-factor/enrolment first", { type: "TWO_FACTOR_NOT_ENROLLING" });
  const audit = { companyId: user.companyId, userId: user.id, actor: { type: "user" as const, id: user.id }, clientAddress: input.clientAddress };
  const step = matchingTotpStep(ctx.secrets.open(pending.secretSealed, user.id), input.code.trim(), now);
  if (step === undefined) {
    await writeAudit(ctx.db, { ...audit, action: "two_factor.enrolment_failed" }, now);
    throw validationError([{ path: "/code", message: "is not a current code of the authenticator app" }], "The code is wrong");
  }
  const recoveryCodes = newRecoveryCodes();
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await claimTotpStep(trx, user.id, step))) throw validationError([{ path: "/code", message: "was used already: wait for the next one" }], "The code is wrong");
    await markTwoFactorEnabled(trx, user.id, now);
    await replaceRecoveryCodes(trx, user.id, recoveryCodes.map((code) => recoveryCodeHash(user.id, normaliseRecoveryCode(code)!)), now);
    await endAndAnnounce(trx, user, { sessionId: session.id }, "two_factor_enabled", now);
    const twoFactor = { enabled: true, required: (await findCompanyRequirement(trx, user.companyId)) };
    const opened = await openSession(ctx, user, input, { method: "two_factor_enrolment", scope: "full", twoFactor }, now, trx);
    await writeAudit(trx, { ...audit, action: "two_factor.enabled", detail: { endedSessionId: session.id, sessionId: opened.live.session.id } }, now);
    return { recoveryCodes, ...opened };
  });
}

async function findCompanyRequirement(db: Db, companyId: string): Promise<boolean> {
  const row = await db.selectFrom("companies").select("require_two_factor").where("id", "=", companyId).executeTakeFirst();
  return row?.require_two_factor ?? false;
}

/**
 * Turns two-factor off for the active user with this email (an operator's act), or for the
 * company's user of this id (an admin's, in the team settings): the secret, recovery codes and
 * challenges are deleted, and the user's sessions end.
 */
export async function resetUserTwoFactor(
  ctx: Pick<AgentAccessContext, "db">,
  who: string | { companyId: string; userId: string },
  now = new Date(),
  origin: AuditOrigin = OPERATOR_ORIGIN,
): Promise<{ user: User; hadTwoFactor: boolean; sessionsEnded: number }> {
  let user: User;
  if (typeof who === "string") {
    const users = (await findUsersByEmail(ctx.db, who.trim())).filter((candidate) => candidate.active);
    if (users.length === 0) throw notFound("no active user has this email");
    if (users.length > 1) throw failedPrecondition("Users of several companies have this email; name one user by an email of its own", { type: "EMAIL_NOT_UNIQUE" });
    user = users[0]!;
  } else {
    const found = isUuid(who.companyId) && isUuid(who.userId) ? await findUser(ctx.db, who.userId) : undefined;
    if (!found || found.companyId !== who.companyId) throw notFound("user not found");
    if (!found.active) throw conflict("This user is deactivated");
    user = found;
  }
  return ctx.db.transaction().execute(async (trx) => {
    const hadTwoFactor = await deleteTwoFactor(trx, user.id);
    const ended = await endAndAnnounce(trx, user, { userId: user.id }, "two_factor_reset", now);
    await writeAudit(
      trx,
      {
        action: "two_factor.reset", companyId: user.companyId, userId: user.id, actor: origin.actor, clientAddress: origin.clientAddress ?? null,
        target: { type: "user", id: user.id }, before: { twoFactorEnabled: hadTwoFactor }, after: { twoFactorEnabled: false }, detail: { hadTwoFactor, sessionsEnded: ended.length },
      },
      now,
    );
    return { user, hadTwoFactor, sessionsEnded: ended.length };
  });
}
