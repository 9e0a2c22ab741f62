// Queries on credentials, sessions, sign-in failures and the audit log.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { AgentSessionRecord, SessionEndReason } from "./agent-session.ts";
import type { FailureCount } from "./sign-in-throttle.ts";
import type { LinkPurpose, UserLinkRecord } from "./user-link.ts";
import type { SessionScope } from "./two-factor.ts";

type Db = Kysely<ContentDatabase>;

export async function findPasswordHash(db: Db, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom("user_credentials").select("password_hash").where("user_id", "=", userId).executeTakeFirst();
  return row?.password_hash;
}

export async function upsertPasswordHash(db: Db, user: { id: string; companyId: string }, passwordHash: string): Promise<void> {
  await db
    .insertInto("user_credentials")
    .values({ user_id: user.id, company_id: user.companyId, password_hash: passwordHash })
    .onConflict((c) => c.column("user_id").doUpdateSet({ password_hash: passwordHash, updated_at: new Date() }))
    .execute();
}

function sessionOf(row: Selectable<ContentDatabase["agent_sessions"]>): AgentSessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    companyId: row.company_id,
    csrfToken: row.csrf_token,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    idleExpiresAt: row.idle_expires_at,
    expiresAt: row.expires_at,
    endedAt: row.ended_at,
    scope: row.scope as SessionScope,
  };
}

export async function insertSession(
  db: Db,
  values: { tokenHash: string; csrfToken: string; userId: string; companyId: string; scope: SessionScope; clientAddress: string | null; userAgent: string | null; now: Date; idleExpiresAt: Date; expiresAt: Date },
): Promise<AgentSessionRecord> {
  const row = await db
    .insertInto("agent_sessions")
    .values({
      token_hash: values.tokenHash, csrf_token: values.csrfToken, user_id: values.userId, company_id: values.companyId,
      client_address: values.clientAddress, user_agent: values.userAgent, created_at: values.now, last_seen_at: values.now,
      idle_expires_at: values.idleExpiresAt, expires_at: values.expiresAt, scope: values.scope,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return sessionOf(row);
}

export async function findSessionByTokenHash(db: Db, tokenHash: string): Promise<AgentSessionRecord | undefined> {
  const row = await db.selectFrom("agent_sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  return row && sessionOf(row);
}

export async function touchSession(db: Db, sessionId: string, now: Date, idleExpiresAt: Date): Promise<void> {
  await db.updateTable("agent_sessions").set({ last_seen_at: now, idle_expires_at: idleExpiresAt }).where("id", "=", sessionId).where("ended_at", "is", null).execute();
}

/** Ends the live sessions chosen (one, or every one of a user); returns their ids. */
export async function endSessions(db: Db, which: { sessionId: string } | { userId: string }, reason: SessionEndReason, now: Date): Promise<string[]> {
  let query = db.updateTable("agent_sessions").set({ ended_at: now, ended_reason: reason }).where("ended_at", "is", null);
  query = "sessionId" in which ? query.where("id", "=", which.sessionId) : query.where("user_id", "=", which.userId);
  const rows = await query.returning("id").execute();
  return rows.map((row) => row.id);
}

export async function findFailureCounts(db: Db, keys: string[]): Promise<Map<string, FailureCount>> {
  const rows = await db.selectFrom("sign_in_failures").selectAll().where("key", "in", keys).execute();
  return new Map(rows.map((row) => [row.key, { failures: row.failures, windowStartedAt: row.window_started_at, lockedUntil: row.locked_until }]));
}

export async function saveFailureCount(db: Db, key: string, count: FailureCount): Promise<void> {
  const values = { failures: count.failures, window_started_at: count.windowStartedAt, locked_until: count.lockedUntil };
  await db.insertInto("sign_in_failures").values({ key, ...values }).onConflict((c) => c.column("key").doUpdateSet(values)).execute();
}

export async function clearFailureCount(db: Db, key: string): Promise<void> {
  await db.deleteFrom("sign_in_failures").where("key", "=", key).execute();
}

function linkOf(row: Selectable<ContentDatabase["user_links"]>): UserLinkRecord {
  return { id: row.id, purpose: row.purpose, userId: row.user_id, companyId: row.company_id, expiresAt: row.expires_at, usedAt: row.used_at };
}

export async function insertUserLink(db: Db, values: { purpose: LinkPurpose; tokenHash: string; userId: string; companyId: string; now: Date; expiresAt: Date }): Promise<UserLinkRecord> {
  const row = await db
    .insertInto("user_links")
    .values({ purpose: values.purpose, token_hash: values.tokenHash, user_id: values.userId, company_id: values.companyId, created_at: values.now, expires_at: values.expiresAt })
    .returningAll()
    .executeTakeFirstOrThrow();
  return linkOf(row);
}

/** The link of a token hash, locked for update when redeeming. */
export async function findUserLink(db: Db, tokenHash: string, options: { lock?: boolean } = {}): Promise<UserLinkRecord | undefined> {
  let query = db.selectFrom("user_links").selectAll().where("token_hash", "=", tokenHash);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && linkOf(row);
}

export async function markLinkUsed(db: Db, linkId: string, now: Date): Promise<void> {
  await db.updateTable("user_links").set({ used_at: now }).where("id", "=", linkId).execute();
}

/** Unused links of a user for a purpose stop working (a newer one replaces them). */
export async function retireLinks(db: Db, userId: string, purpose: LinkPurpose, now: Date): Promise<void> {
  await db.updateTable("user_links").set({ used_at: now }).where("user_id", "=", userId).where("purpose", "=", purpose).where("used_at", "is", null).execute();
}

export async function setUserActive(db: Db, userId: string, active: boolean): Promise<boolean> {
  const result = await db.updateTable("users").set({ active, updated_at: new Date() }).where("id", "=", userId).where("active", "=", !active).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
