// Queries of a player's erasure: the erased-player marks and the deletion of a player's
// tickets. Free functions taking the executor; no rules here.
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { FieldValues } from "../tickets/ticket.ts";

type Db = Kysely<TicketsDatabase>;

/** Marks the player erased; a second mark changes nothing. */
export async function markPlayerErased(trx: Db, companyId: string, servicePlayerId: string): Promise<void> {
  await trx
    .insertInto("erased_players")
    .values({ company_id: companyId, service_player_id: servicePlayerId })
    .onConflict((oc) => oc.columns(["company_id", "service_player_id"]).doNothing())
    .execute();
}

export async function isPlayerErased(db: Db, companyId: string, servicePlayerId: string): Promise<boolean> {
  const row = await db
    .selectFrom("erased_players")
    .select("service_player_id")
    .where("company_id", "=", companyId)
    .where("service_player_id", "=", servicePlayerId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface ErasedTicket {
  id: string;
  runningId: number;
  gameId: string;
  tags: string[];
  fields: FieldValues;
}

/** Locks every ticket of the player (all statuses). */
export async function lockPlayerTickets(trx: Db, companyId: string, servicePlayerId: string): Promise<ErasedTicket[]> {
  const rows = await trx
    .selectFrom("tickets")
    .select(["id", "running_id", "game_id", "tags", "fields"])
    .where("company_id", "=", companyId)
    .where("service_player_id", "=", servicePlayerId)
    .orderBy("running_id")
    .forUpdate()
    .execute();
  return rows.map((row) => ({ id: row.id, runningId: Number(row.running_id), gameId: row.game_id, tags: row.tags, fields: row.fields }));
}

/** Deletes the tickets; their events and breadcrumbs go with them (on delete cascade). */
export async function deleteTickets(trx: Db, ticketIds: string[]): Promise<{ events: number; breadcrumbs: number }> {
  if (ticketIds.length === 0) return { events: 0, breadcrumbs: 0 };
  const counted = await sql<{ events: number; breadcrumbs: number }>`
    select (select count(*)::int from ticket_events where ticket_id = any(${ticketIds}::uuid[])) as events,
           (select count(*)::int from ticket_breadcrumbs where ticket_id = any(${ticketIds}::uuid[])) as breadcrumbs`.execute(trx);
  await trx.deleteFrom("tickets").where("id", "in", ticketIds).execute();
  return counted.rows[0]!;
}
