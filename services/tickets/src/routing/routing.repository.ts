// Queries of routing: the company's routing lock, a game's queue, the agents' load and turn,
// and the tickets an agent who went away has not answered yet. No rules here.
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { QueuedTicket } from "./routing.ts";

type Db = Kysely<TicketsDatabase>;

/**
 * Serialises routing runs of one company on every replica until the transaction ends. Per
 * company rather than per game: an agent's capacity counts their tickets of every game, so two
 * games routed at once could both give the same agent their last free place.
 */
export async function lockCompanyRouting(trx: Db, companyId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`routing:${companyId}`}, 0))`.execute(trx);
}

/** The game's queue, highest tier then oldest first: open tickets in new or unassigned without an assignee. */
export async function listQueue(db: Db, companyId: string, gameId: string, limit: number): Promise<(Omit<QueuedTicket, "skillTags"> & { tags: string[] })[]> {
  const tier = sql<number | null>`case when jsonb_typeof(metadata->'playerTier') = 'number' then (metadata->>'playerTier')::numeric end`;
  const rows = await db
    .selectFrom("tickets")
    .select(["id", "language", "tags", "created_at", "routing_excluded_user_id", tier.as("tier")])
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId)
    .where("assignee_id", "is", null)
    .where("closed_at", "is", null)
    .where("status", "in", ["new", "unassigned"])
    .orderBy(sql`${tier} desc nulls last`)
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id, language: row.language, tags: row.tags, tier: row.tier === null ? null : Number(row.tier), createdAt: row.created_at, excludedUserId: row.routing_excluded_user_id,
  }));
}

/** The games of the company that have queued tickets. */
export async function listGamesWithQueue(db: Db, companyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("tickets")
    .select("game_id")
    .distinct()
    .where("company_id", "=", companyId)
    .where("assignee_id", "is", null)
    .where("closed_at", "is", null)
    .where("status", "in", ["new", "unassigned"])
    .execute();
  return rows.map((row) => row.game_id);
}

/** Each agent's open assigned tickets (any status but closed, any game of the company). */
export async function countOpenAssigned(db: Db, companyId: string, userIds: readonly string[]): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("tickets")
    .select(["assignee_id", (eb) => eb.fn.countAll<string>().as("open")])
    .where("company_id", "=", companyId)
    .where("closed_at", "is", null)
    .where("assignee_id", "in", [...userIds])
    .groupBy("assignee_id")
    .execute();
  return new Map(rows.map((row) => [row.assignee_id!, Number(row.open)]));
}

/** When routing last assigned each agent a ticket (absent: never). */
export async function lastAssignedTimes(db: Db, companyId: string, userIds: readonly string[]): Promise<Map<string, Date>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom("routing_agents").select(["user_id", "last_assigned_at"]).where("company_id", "=", companyId).where("user_id", "in", [...userIds]).execute();
  return new Map(rows.map((row) => [row.user_id, row.last_assigned_at]));
}

export async function recordAssigned(db: Db, companyId: string, userId: string, at: Date): Promise<void> {
  await db
    .insertInto("routing_agents")
    .values({ company_id: companyId, user_id: userId, last_assigned_at: at })
    .onConflict((oc) => oc.columns(["company_id", "user_id"]).doUpdateSet({ last_assigned_at: at }))
    .execute();
}

export async function setExcludedUser(db: Db, ticketId: string, userId: string | null): Promise<void> {
  await db.updateTable("tickets").set({ routing_excluded_user_id: userId }).where("id", "=", ticketId).execute();
}

/** The agent's tickets in `assigned` (neither waiting nor on hold) that no agent has answered yet (no AGENT_MESSAGE). */
export async function listUnansweredAssigned(db: Db, companyId: string, userId: string): Promise<{ id: string; gameId: string }[]> {
  const rows = await db
    .selectFrom("tickets as t")
    .select(["t.id", "t.game_id"])
    .where("t.company_id", "=", companyId)
    .where("t.assignee_id", "=", userId)
    .where("t.status", "=", "assigned")
    .where((eb) => eb.not(eb.exists(eb.selectFrom("ticket_events as e").select("e.id").whereRef("e.ticket_id", "=", "t.id").where("e.type", "=", "AGENT_MESSAGE"))))
    .orderBy("t.created_at")
    .execute();
  return rows.map((row) => ({ id: row.id, gameId: row.game_id }));
}
