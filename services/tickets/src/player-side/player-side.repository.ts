// SQL of the player side: the player's tickets, the last player message time and CSAT, and what
// the player has read of each conversation.
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

/** Records that the player looked at the conversation now (a later look moves it on, an earlier never back). */
export async function upsertPlayerRead(db: Db, read: { companyId: string; ticketId: string; at: Date }): Promise<void> {
  await db
    .insertInto("player_ticket_reads")
    .values({ ticket_id: read.ticketId, company_id: read.companyId, read_at: read.at })
    .onConflict((oc) => oc.column("ticket_id").doUpdateSet({ read_at: sql`greatest(player_ticket_reads.read_at, excluded.read_at)` }))
    .execute();
}

/** A conversation's last message (the player's or an agent's) and the agent messages the player has not read. */
export interface ConversationActivityRow {
  ticketId: string;
  lastFrom: "player" | "agent" | null;
  lastText: string | null;
  lastAt: Date | null;
  lastHasAttachments: boolean;
  unread: number;
}

/**
 * Per ticket, by the events index (ticket_id, seq): the last PLAYER_MESSAGE or AGENT_MESSAGE,
 * and the count of AGENT_MESSAGEs after the player's last read (all of them when never read).
 * Private notes are never read here.
 */
export async function conversationActivity(db: Db, ticketIds: readonly string[]): Promise<Map<string, ConversationActivityRow>> {
  if (ticketIds.length === 0) return new Map();
  const { rows } = await sql<{ ticket_id: string; type: string | null; message: string | null; created_at: Date | null; attachments: number | null; unread: string }>`
    select t.id as ticket_id, last.type, last.message, last.created_at, last.attachments,
      (select count(*) from ticket_events unread
        where unread.ticket_id = t.id and unread.type = 'AGENT_MESSAGE'
          and unread.created_at > coalesce((select read_at from player_ticket_reads r where r.ticket_id = t.id), '-infinity')) as unread
    from unnest(${[...ticketIds]}::uuid[]) as t(id)
    left join lateral (
      select e.type, e.data->>'message' as message, e.created_at, jsonb_array_length(coalesce(e.data->'attachments', '[]'::jsonb)) as attachments
      from ticket_events e
      where e.ticket_id = t.id and e.type in ('PLAYER_MESSAGE', 'AGENT_MESSAGE')
      order by e.seq desc
      limit 1
    ) last on true`.execute(db);
  return new Map(
    rows.map((row) => [
      row.ticket_id,
      {
        ticketId: row.ticket_id,
        lastFrom: row.type === "PLAYER_MESSAGE" ? "player" : row.type === "AGENT_MESSAGE" ? "agent" : null,
        lastText: row.message,
        lastAt: row.created_at,
        lastHasAttachments: (row.attachments ?? 0) > 0,
        unread: Number(row.unread),
      },
    ]),
  );
}
