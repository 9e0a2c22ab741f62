// Queries behind routing's view of the team: who may take a game's tickets now, and the users'
// availability toggle.
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";

type Db = Kysely<ContentDatabase>;

export interface RoutingAgentRow {
  userId: string;
  skills: string[];
  languages: string[];
  capacity: number;
}

/** The game's routing switch; undefined for another company's game, a deleted one or none. */
export async function findGameRouting(db: Db, companyId: string, gameId: string): Promise<boolean | undefined> {
  const row = await db.selectFrom("games").select("routing_enabled").where("company_id", "=", companyId).where("id", "=", gameId).where("deleted_at", "is", null).executeTakeFirst();
  return row?.routing_enabled;
}

/**
 * The company's users routing may assign the game's tickets to at `now`: active, available, with
 * access to the game (admins have every game) and at least one live full session (signed in).
 */
export async function listRoutableAgents(db: Db, companyId: string, gameId: string, now: Date): Promise<RoutingAgentRow[]> {
  const rows = await db
    .selectFrom("users as u")
    .select(["u.id", "u.skills", "u.languages", "u.capacity"])
    .where("u.company_id", "=", companyId)
    .where("u.active", "=", true)
    .where("u.available", "=", true)
    .where((eb) =>
      eb.or([
        eb("u.role", "=", "admin"),
        eb.exists(eb.selectFrom("user_game_access as a").select("a.user_id").whereRef("a.user_id", "=", "u.id").where("a.game_id", "=", gameId)),
      ]),
    )
    .where((eb) =>
      eb.exists(
        eb.selectFrom("agent_sessions as s").select("s.id")
          .whereRef("s.user_id", "=", "u.id")
          .where("s.ended_at", "is", null)
          .where("s.scope", "=", "full")
          .where("s.idle_expires_at", ">", now)
          .where("s.expires_at", ">", now),
      ),
    )
    .orderBy("u.id")
    .execute();
  return rows.map((row) => ({ userId: row.id, skills: row.skills, languages: row.languages, capacity: row.capacity }));
}

/** Sets the toggle; answers the previous value, or undefined for another company's user or none. */
export async function updateAvailability(db: Db, companyId: string, userId: string, available: boolean, now: Date): Promise<boolean | undefined> {
  const before = await db.selectFrom("users").select("available").where("id", "=", userId).where("company_id", "=", companyId).forUpdate().executeTakeFirst();
  if (!before) return undefined;
  if (before.available !== available) await db.updateTable("users").set({ available, updated_at: now }).where("id", "=", userId).execute();
  return before.available;
}

/**
 * Available users none of whose live sessions was used since `cutoff` (the console closed
 * without signing out), oldest first; at most `limit`.
 */
export async function listQuietAvailable(db: Db, cutoff: Date, now: Date, limit: number): Promise<{ id: string; companyId: string }[]> {
  const rows = await db
    .selectFrom("users as u")
    .select(["u.id", "u.company_id"])
    .where("u.available", "=", true)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom("agent_sessions as s").select("s.id")
            .whereRef("s.user_id", "=", "u.id")
            .where("s.ended_at", "is", null)
            .where("s.last_seen_at", ">", cutoff)
            .where("s.idle_expires_at", ">", now)
            .where("s.expires_at", ">", now),
        ),
      ),
    )
    .orderBy("u.updated_at")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.id, companyId: row.company_id }));
}

/** Whether the user has a live session left at `now`. */
export async function hasLiveSession(db: Db, userId: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom("agent_sessions")
    .select("id")
    .where("user_id", "=", userId)
    .where("ended_at", "is", null)
    .where("idle_expires_at", ">", now)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return row !== undefined;
}

/** Sets a game's routing switch; answers the previous value, or undefined for no such live game. */
export async function updateGameRouting(db: Db, companyId: string, gameId: string, enabled: boolean, now: Date): Promise<boolean | undefined> {
  const before = await db.selectFrom("games").select("routing_enabled").where("company_id", "=", companyId).where("id", "=", gameId).where("deleted_at", "is", null).forUpdate().executeTakeFirst();
  if (!before) return undefined;
  if (before.routing_enabled !== enabled) await db.updateTable("games").set({ routing_enabled: enabled, updated_at: now }).where("id", "=", gameId).execute();
  return before.routing_enabled;
}
