// Queries on ticket events.
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Actor } from "../tickets/ticket.ts";
import type { TicketsDatabase } from "../database.ts";
import { PUBLIC_EVENT_TYPES, type RecordedEvent, type TicketEvent } from "./event.ts";

type Db = Kysely<TicketsDatabase>;

/**
 * The ticket events are appended to: its language chooses how their text is indexed for search,
 * its running id the block of tickets search reads them by.
 */
export interface EventsTicket {
  id: string;
  companyId: string;
  language: string;
  /** The ticket's running id, or the statement's expression of it when the ticket is inserted by the same statement. */
  runningId: number | RawBuilder<number>;
}

/**
 * The statement that appends events in the given order (seq is the creation order), to run on
 * its own (insertEvents) or inside the statement that writes the ticket (ticket.repository).
 * Every event records the search configuration of the ticket's language (the migration's
 * ticket_search_config), its search_vector generated from it and the event's text, and the
 * ticket's running id.
 */
export function eventsInsert(ticket: EventsTicket, events: readonly RecordedEvent[]): RawBuilder<unknown> {
  return sql`
    insert into ticket_events (id, ticket_id, company_id, type, data, actor, search_config, ticket_running_id)
    select e.id, ${ticket.id}::uuid, ${ticket.companyId}::uuid, e.type, e.data, e.actor, ticket_search_config(${ticket.language}::text),
      ${ticket.runningId}::bigint
    from unnest(${events.map((event) => event.id)}::uuid[], ${events.map((event) => event.type)}::text[],
                ${events.map((event) => JSON.stringify(event.data))}::jsonb[], ${events.map((event) => JSON.stringify(event.actor))}::jsonb[])
      with ordinality as e(id, type, data, actor, n)
    order by e.n`;
}

/** Appends events in the given order (seq is the creation order). */
export async function insertEvents(trx: Db, ticket: EventsTicket, events: readonly RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  await eventsInsert(ticket, events).execute(trx);
}

/** The public events of a ticket in creation order; internal types are never returned. */
export async function listPublicEvents(db: Db, ticketId: string): Promise<TicketEvent[]> {
  const rows = await db
    .selectFrom("ticket_events")
    .select(["id", "type", "data", "actor", "created_at"])
    .where("ticket_id", "=", ticketId)
    .where("type", "in", [...PUBLIC_EVENT_TYPES])
    .orderBy("seq")
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at, data: row.data, actor: row.actor }) as TicketEvent);
}

/** The ticket's assignee changes (ASSIGNEE_CHANGED), oldest first. */
export async function listAssigneeChanges(db: Db, ticketId: string): Promise<{ createdAt: Date; from: string | null; to: string | null; actor: Actor }[]> {
  const rows = await db
    .selectFrom("ticket_events")
    .select(["data", "actor", "created_at"])
    .where("ticket_id", "=", ticketId)
    .where("type", "=", "ASSIGNEE_CHANGED")
    .orderBy("seq")
    .execute();
  return rows.map((row) => ({ createdAt: row.created_at, from: (row.data.from as string | null) ?? null, to: (row.data.to as string | null) ?? null, actor: row.actor }));
}
