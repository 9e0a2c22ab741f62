// SQL of the player side: the player's tickets, the last player message time and CSAT.
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { PlayerSideOwner } from "./player-side.ts";

type Db = Kysely<TicketsDatabase>;

/**
 * Ids of the owner's tickets in the game, newest first: those its session opened, and those of
 * its verified identity (the rule of ownsTicket).
 */
export async function listOwnedTicketIds(db: Db, owner: PlayerSideOwner, limit: number): Promise<string[]> {
  const query = db
    .selectFrom("tickets")
    .select("id")
    .where("company_id", "=", owner.companyId)
    .where("game_id", "=", owner.gameId)
    .where((eb) => {
      const mine = [];
      if (owner.sessionId !== null) {
        mine.push(eb("id", "in", eb.selectFrom("session_tickets").select("ticket_id").where("session_id", "=", owner.sessionId)));
      }
      if (owner.playerId !== null) {
        mine.push(eb("player_external_id", "=", owner.playerId));
        if (owner.email !== null) mine.push(eb.and([eb("player_external_id", "is", null), eb(sql<string>`lower(email)`, "=", owner.email)]));
      } else if (owner.email !== null) {
        mine.push(eb(sql<string>`lower(email)`, "=", owner.email));
      }
      return eb.or(mine);
    });
  const rows = await query.orderBy("created_at", "desc").orderBy("running_id", "desc").limit(limit).execute();
  return rows.map((row) => row.id);
}

/** Whether the session opened the ticket. */
export async function sessionOpenedTicket(db: Db, sessionId: string, ticketId: string): Promise<boolean> {
  const row = await db.selectFrom("session_tickets").select("ticket_id").where("session_id", "=", sessionId).where("ticket_id", "=", ticketId).executeTakeFirst();
  return row !== undefined;
}

/** Records that the session opened the ticket (in the ticket's creation transaction). */
export async function recordSessionTicket(trx: Db, sessionId: string, ticketId: string): Promise<void> {
  await trx.insertInto("session_tickets").values({ session_id: sessionId, ticket_id: ticketId }).execute();
}

export async function setLastPlayerMessageAt(trx: Db, ticketId: string, at: Date): Promise<void> {
  await trx.updateTable("tickets").set({ last_player_message_at: at, last_activity_at: at }).where("id", "=", ticketId).execute();
}

export async function setCsat(trx: Db, ticketId: string, score: number, review: string | null, at: Date): Promise<void> {
  await trx.updateTable("tickets").set({ csat_score: score, csat_review: review, last_activity_at: at }).where("id", "=", ticketId).execute();
}

/**
 * Lets the sessions that opened one ticket see another too (a merge: the source's sessions
 * follow its conversation into the target). A session that already has it is left as it is.
 */
export async function shareSessionTickets(trx: Db, fromTicketId: string, toTicketId: string): Promise<void> {
  await sql`
    insert into session_tickets (session_id, ticket_id)
    select session_id, ${toTicketId}::uuid from session_tickets where ticket_id = ${fromTicketId}::uuid
    on conflict do nothing`.execute(trx);
}
