// Queries on ticket events.
import type { Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import { PUBLIC_EVENT_TYPES, type RecordedEvent, type TicketEvent } from "./event.ts";

type Db = Kysely<TicketsDatabase>;

/** Appends events in the given order (seq is the creation order). */
export async function insertEvents(trx: Db, companyId: string, ticketId: string, events: readonly RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  await trx
    .insertInto("ticket_events")
    .values(
      events.map((event) => ({
        id: event.id,
        ticket_id: ticketId,
        company_id: companyId,
        type: event.type,
        data: JSON.stringify(event.data),
        actor: JSON.stringify(event.actor),
      })),
    )
    .execute();
}

/** The public events of a ticket in creation order; internal types are never returned. */
export async function listPublicEvents(db: Db, ticketId: string): Promise<TicketEvent[]> {
  const rows = await db
    .selectFrom("ticket_events")
    .select(["id", "type", "data", "created_at"])
    .where("ticket_id", "=", ticketId)
    .where("type", "in", [...PUBLIC_EVENT_TYPES])
    .orderBy("seq")
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at, data: row.data }) as TicketEvent);
}
