// Queries on players.email_verifications and the session's email_verified_at.
import { sql, type Kysely } from "@support/db";
import type { PlayersDatabase } from "../database.ts";
import type { PendingEmailCode } from "./email-verification.ts";

type Db = Kysely<PlayersDatabase>;

/** The session's pending code, locked until the transaction ends (sends and entries are counted under it). */
export async function lockPendingCode(db: Db, sessionId: string): Promise<PendingEmailCode | undefined> {
  const row = await db
    .selectFrom("email_verifications")
    .select(["session_id", "email_normalized", "code_hash", "expires_at", "attempts", "sends", "last_sent_at"])
    .where("session_id", "=", sessionId)
    .forUpdate()
    .executeTakeFirst();
  return row && {
    sessionId: row.session_id,
    emailNormalized: row.email_normalized,
    codeHash: row.code_hash,
    expiresAt: row.expires_at,
    attempts: row.attempts,
    sends: row.sends,
    lastSentAt: row.last_sent_at,
  };
}

/** Stores a new code for the session (replacing the previous one: its attempts start again, its sends add up). */
export async function storeCode(db: Db, values: { sessionId: string; emailNormalized: string; codeHash: string; ttlSeconds: number }): Promise<Date> {
  const row = await db
    .insertInto("email_verifications")
    .values({
      session_id: values.sessionId,
      email_normalized: values.emailNormalized,
      code_hash: values.codeHash,
      expires_at: sql<Date>`now() + make_interval(secs => ${values.ttlSeconds})`,
      attempts: 0,
      sends: 1,
      last_sent_at: sql<Date>`now()`,
    })
    .onConflict((oc) =>
      oc.column("session_id").doUpdateSet({
        email_normalized: (eb) => eb.ref("excluded.email_normalized"),
        code_hash: (eb) => eb.ref("excluded.code_hash"),
        expires_at: (eb) => eb.ref("excluded.expires_at"),
        attempts: 0,
        sends: sql<number>`email_verifications.sends + 1`,
        last_sent_at: sql<Date>`now()`,
      }),
    )
    .returning("expires_at")
    .executeTakeFirstOrThrow();
  return row.expires_at;
}

/** Counts a wrong entry. */
export async function countWrongAttempt(db: Db, sessionId: string): Promise<void> {
  await db.updateTable("email_verifications").set({ attempts: sql<number>`attempts + 1` }).where("session_id", "=", sessionId).execute();
}

/** The code was right: it is used up, and the session's email is verified from now on. Returns when. */
export async function markEmailVerified(db: Db, sessionId: string): Promise<Date> {
  await db.deleteFrom("email_verifications").where("session_id", "=", sessionId).execute();
  const row = await db
    .updateTable("support_sessions")
    .set({ email_verified_at: sql<Date>`coalesce(email_verified_at, now())` })
    .where("id", "=", sessionId)
    .returning("email_verified_at")
    .executeTakeFirstOrThrow();
  return row.email_verified_at!;
}
