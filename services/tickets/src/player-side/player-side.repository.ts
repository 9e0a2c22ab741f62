// SQL of the player side: the player's tickets, the last player message time and CSAT.
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { PlayerSideOwner } from "./player-side.ts";

type Db = Kysely<TicketsDatabase>;

/** Ids of the owner's tickets in the game, newest first. */
export async function listOwnedTicketIds(db: Db, owner: PlayerSideOwner, limit: number): Promise<string[]> {
  let query = db.selectFrom("tickets").select("id").where("company_id", "=", owner.companyId).where("game_id", "=", owner.gameId);
  if (owner.playerId !== null) query = query.where("player_external_id", "=", owner.playerId);
  else query = query.where("player_external_id", "is", null).where(sql<boolean>`lower(email) = ${owner.email ?? ""}`);
  const rows = await query.orderBy("created_at", "desc").orderBy("running_id", "desc").limit(limit).execute();
  return rows.map((row) => row.id);
}

export async function setLastPlayerMessageAt(trx: Db, ticketId: string, at: Date): Promise<void> {
  await trx.updateTable("tickets").set({ last_player_message_at: at, last_activity_at: at }).where("id", "=", ticketId).execute();
}

export async function setCsat(trx: Db, ticketId: string, score: number, review: string | null, at: Date): Promise<void> {
  await trx.updateTable("tickets").set({ csat_score: score, csat_review: review, last_activity_at: at }).where("id", "=", ticketId).execute();
}
