// Queries on two-factor: the users' sealed TOTP secrets, their recovery codes and the challenges
// between a right password and the code.
import { sql, type Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { TwoFactorStatus } from "./two-factor.ts";

type Db = Kysely<ContentDatabase>;

export interface TwoFactorRecord {
  userId: string;
  secretSealed: string;
  enabledAt: Date | null;
  lastUsedStep: number | null;
}

export async function findTwoFactor(db: Db, userId: string): Promise<TwoFactorRecord | undefined> {
  const row = await db.selectFrom("user_two_factor").selectAll().where("user_id", "=", userId).executeTakeFirst();
  return row && { userId: row.user_id, secretSealed: row.secret_sealed, enabledAt: row.enabled_at, lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step) };
}

/** Whether the user has two-factor on and whether their company requires it, in one query. */
export async function findTwoFactorStatus(db: Db, user: { id: string; companyId: string }): Promise<TwoFactorStatus> {
  const row = await db
    .selectFrom("companies as c")
    .leftJoin("user_two_factor as t", (join) => join.on("t.user_id", "=", user.id).on("t.enabled_at", "is not", null))
    .select(["c.require_two_factor", "t.user_id"])
    .where("c.id", "=", user.companyId)
    .executeTakeFirst();
  return { enabled: row?.user_id != null, required: row?.require_two_factor ?? false };
}

/** Starts (or restarts) an enrolment: a new sealed secret, two-factor not on yet. */
export async function upsertPendingTwoFactor(db: Db, user: { id: string; companyId: string }, secretSealed: string, now: Date): Promise<void> {
  await db
    .insertInto("user_two_factor")
    .values({ user_id: user.id, company_id: user.companyId, secret_sealed: secretSealed, enabled_at: null, last_used_step: null, created_at: now })
    .onConflict((c) => c.column("user_id").doUpdateSet({ secret_sealed: secretSealed, enabled_at: null, last_used_step: null, created_at: now }))
    .execute();
}

/**
 * Records the use of a time step, only when it is later than every step used before: false when
 * the step (or a later one) was used already, so a code is accepted once even by two concurrent
 * requests.
 */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const rows = await db
    .updateTable("user_two_factor")
    .set({ last_used_step: String(step) })
    .where("user_id", "=", userId)
    .where((eb) => eb.or([eb("last_used_step", "is", null), eb("last_used_step", "<", sql<string>`${String(step)}::bigint`)]))
    .returning("user_id")
    .execute();
  return rows.length > 0;
}

export async function markTwoFactorEnabled(db: Db, userId: string, now: Date): Promise<void> {
  await db.updateTable("user_two_factor").set({ enabled_at: now }).where("user_id", "=", userId).execute();
}

export async function replaceRecoveryCodes(db: Db, userId: string, codeHashes: string[], now: Date): Promise<void> {
  await db.deleteFrom("user_recovery_codes").where("user_id", "=", userId).execute();
  await db.insertInto("user_recovery_codes").values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null, created_at: now }))).execute();
}

/** Marks an unused recovery code used; false when there is no such unused code. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable("user_recovery_codes")
    .set({ used_at: now })
    .where("user_id", "=", userId)
    .where("code_hash", "=", codeHash)
    .where("used_at", "is", null)
    .returning("id")
    .execute();
  return rows.length > 0;
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom("user_recovery_codes").select((eb) => eb.fn.countAll<string>().as("n")).where("user_id", "=", userId).where("used_at", "is", null).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertChallenge(db: Db, values: { tokenHash: string; userId: string; companyId: string; now: Date; expiresAt: Date }): Promise<void> {
  await db
    .insertInto("two_factor_challenges")
    .values({ token_hash: values.tokenHash, user_id: values.userId, company_id: values.companyId, created_at: values.now, expires_at: values.expiresAt, used_at: null })
    .execute();
}

export interface ChallengeRecord {
  id: string;
  userId: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function findChallenge(db: Db, tokenHash: string): Promise<ChallengeRecord | undefined> {
  const row = await db.selectFrom("two_factor_challenges").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  return row && { id: row.id, userId: row.user_id, expiresAt: row.expires_at, usedAt: row.used_at };
}

/** Uses a live challenge up; false when it was used (or expired) meanwhile. */
export async function useChallenge(db: Db, challengeId: string, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable("two_factor_challenges")
    .set({ used_at: now })
    .where("id", "=", challengeId)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("id")
    .execute();
  return rows.length > 0;
}

/** Deletes the user's secret, recovery codes and challenges; true when there was a secret. */
export async function deleteTwoFactor(db: Db, userId: string): Promise<boolean> {
  await db.deleteFrom("two_factor_challenges").where("user_id", "=", userId).execute();
  await db.deleteFrom("user_recovery_codes").where("user_id", "=", userId).execute();
  const rows = await db.deleteFrom("user_two_factor").where("user_id", "=", userId).returning("user_id").execute();
  return rows.length > 0;
}

/** Challenges expired a day ago or more go at each new one (they are useless after their 5 minutes). */
export async function deleteOldChallenges(db: Db, before: Date): Promise<void> {
  await db.deleteFrom("two_factor_challenges").where("expires_at", "<", before).execute();
}
