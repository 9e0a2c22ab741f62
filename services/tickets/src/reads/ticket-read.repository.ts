// Queries on what users have read, and on the first player message of tickets (the subject a
// list shows).
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";

type Db = Kysely<TicketsDatabase>;

/** Records that the user looked at the ticket now (a later look moves it on, an earlier never back). */
export async function upsertRead(db: Db, read: { companyId: string; userId: string; ticketId: string; at: Date }): Promise<void> {
  await db
    .insertInto("ticket_reads")
    .values({ company_id: read.companyId, user_id: read.userId, ticket_id: read.ticketId, read_at: read.at })
    .onConflict((oc) => oc.columns(["user_id", "ticket_id"]).doUpdateSet({ read_at: sql`greatest(ticket_reads.read_at, excluded.read_at)` }))
    .execute();
}

/** When the user last read each of the tickets they have read. */
export async function readTimes(db: Db, userId: string, ticketIds: readonly string[]): Promise<Map<string, Date>> {
  if (ticketIds.length === 0) return new Map();
  const rows = await db.selectFrom("ticket_reads").select(["ticket_id", "read_at"]).where("user_id", "=", userId).where("ticket_id", "in", [...ticketIds]).execute();
  return new Map(rows.map((row) => [row.ticket_id, row.read_at]));
}

/** The text of each ticket's first player message (by the events index, one row per ticket). */
export async function firstPlayerMessages(db: Db, ticketIds: readonly string[]): Promise<Map<string, string>> {
  if (ticketIds.length === 0) return new Map();
  const { rows } = await sql<{ ticket_id: string; message: string | null }>`
    select distinct on (ticket_id) ticket_id, data->>'message' as message
    from ticket_events
    where ticket_id = any(${[...ticketIds]}::uuid[]) and type = 'PLAYER_MESSAGE'
    order by ticket_id, seq`.execute(db);
  return new Map(rows.filter((row) => row.message !== null).map((row) => [row.ticket_id, row.message!]));
}
