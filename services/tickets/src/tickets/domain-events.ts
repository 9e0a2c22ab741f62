// The domain events the tickets service publishes on NATS and their data (the event contract,
// libs/events); each is written to the outbox in the transaction of the change it describes.
import type { NewEvent } from "@support/bus";
import { newEvent, type EventData, type EventType } from "@support/events";
import type { CollectorField, RecordedEvent } from "../ticket-events/event.ts";
import { ticketEventData, type Actor, type FieldValues, type Ticket, type TicketStatus } from "./ticket.ts";

export const TICKET_EVENT_TYPES = {
  created: "tickets.ticket.created",
  statusChanged: "tickets.ticket.status_changed",
  assigned: "tickets.ticket.assigned",
  messageAdded: "tickets.ticket.message_added",
  closed: "tickets.ticket.closed",
  tagsChanged: "tickets.ticket.tags_changed",
  fieldsChanged: "tickets.ticket.fields_changed",
  deleted: "tickets.ticket.deleted",
  rated: "tickets.ticket.rated",
  collectorResultAdded: "tickets.ticket.collector_result_added",
  merged: "tickets.ticket.merged",
  // Written by the SLA sweep (sla/sla.service.ts).
  slaWarning: "tickets.ticket.sla_warning",
  slaBreached: "tickets.ticket.sla_breached",
} as const;

function base(ticket: Ticket) {
  return { ticketId: ticket.id, runningId: ticket.runningId, gameId: ticket.gameId };
}

function event<T extends EventType>(type: T, ticket: Ticket, data: EventData<T>): NewEvent {
  return newEvent(type, ticket.companyId, data);
}

export function ticketCreated(ticket: Ticket, url: string): NewEvent {
  return event(TICKET_EVENT_TYPES.created, ticket, ticketEventData(ticket, url));
}

export function statusChanged(ticket: Ticket, from: TicketStatus, actor: Actor): NewEvent {
  return event(TICKET_EVENT_TYPES.statusChanged, ticket, {
    ...base(ticket), from, to: ticket.status, resolutionType: ticket.resolutionType, actor,
  });
}

export function ticketClosed(ticket: Ticket, closedAt: Date, actor: Actor): NewEvent {
  if (ticket.resolutionType === null) throw new Error("a closed ticket has a resolution type");
  return event(TICKET_EVENT_TYPES.closed, ticket, {
    ...base(ticket), resolutionType: ticket.resolutionType, closedAt: closedAt.toISOString(), actor,
    ...(ticket.resolutionType === "merged" && ticket.followUpTicketId !== null ? { followUpTicketId: ticket.followUpTicketId } : {}),
  });
}

/** The source was merged into the target (after its status_changed and closed). */
export function ticketMerged(source: Ticket, target: Ticket, copiedEvents: number, addedTags: string[], actor: Actor): NewEvent {
  return event(TICKET_EVENT_TYPES.merged, source, {
    ...base(source), targetTicketId: target.id, targetRunningId: target.runningId, copiedEvents, addedTags, actor,
  });
}

export function ticketAssigned(ticket: Ticket, previousAssigneeId: string | null, actor: Actor): NewEvent {
  return event(TICKET_EVENT_TYPES.assigned, ticket, { ...base(ticket), assigneeId: ticket.assigneeId, previousAssigneeId, actor });
}

/** A PLAYER_MESSAGE, AGENT_MESSAGE or PRIVATE_NOTE was added. */
/**
 * A message added. `channel`: how it travels; by default the ticket's (an email ticket's messages
 * are mailed), given where it differs (the page on an email ticket, an answer by mail). None on a
 * private note.
 */
export function messageAdded(ticket: Ticket, recorded: RecordedEvent, channel?: "chat" | "email"): NewEvent {
  if (recorded.type !== "PLAYER_MESSAGE" && recorded.type !== "AGENT_MESSAGE" && recorded.type !== "PRIVATE_NOTE") {
    throw new Error(`not a message event: ${recorded.type}`);
  }
  const travels = recorded.type === "PRIVATE_NOTE" ? undefined : (channel ?? (ticket.channels.includes("email") ? "email" : "chat"));
  return event(TICKET_EVENT_TYPES.messageAdded, ticket, {
    ...base(ticket),
    eventId: recorded.id,
    type: recorded.type,
    message: recorded.data.message,
    language: "language" in recorded.data ? recorded.data.language : null,
    attachments: recorded.data.attachments,
    actor: recorded.actor,
    ...(travels === undefined ? {} : { channel: travels }),
  });
}

/**
 * The player rated a resolved ticket (CSAT). Like message_added carries the player's
 * message, it carries the review text (null without one).
 */
export function ticketRated(ticket: Ticket, recorded: RecordedEvent): NewEvent {
  if (recorded.type !== "CSAT") throw new Error(`not a CSAT event: ${recorded.type}`);
  return event(TICKET_EVENT_TYPES.rated, ticket, {
    ...base(ticket),
    eventId: recorded.id,
    score: recorded.data.score,
    review: recorded.data.review,
    actor: recorded.actor,
  });
}

/**
 * The player answered a collector. Like message_added carries the message, it carries the
 * answers (`fields` as the COLLECTOR_RESULT ticket event stores them).
 */
export function collectorResultAdded(ticket: Ticket, recorded: RecordedEvent): NewEvent {
  if (recorded.type !== "COLLECTOR_RESULT") throw new Error(`not a collector result: ${recorded.type}`);
  const fields = recorded.data.fields.map(collectorFieldData);
  return event(TICKET_EVENT_TYPES.collectorResultAdded, ticket, {
    ...base(ticket),
    eventId: recorded.id,
    collectorId: recorded.data.collectorId,
    resultId: recorded.data.resultId,
    title: recorded.data.title,
    fields,
    actor: recorded.actor,
  });
}

/** A stored answer as the event has it: attachments for a FILE field, a value (null: none) for any other. */
function collectorFieldData(field: CollectorField): EventData<"tickets.ticket.collector_result_added">["fields"][number] {
  const { key, label } = field;
  return field.type === "FILE" ? { key, label, type: "FILE", attachments: field.attachments ?? [] } : { key, label, type: field.type, value: field.value ?? null };
}

export function tagsChanged(ticket: Ticket, added: string[], removed: string[], actor: Actor): NewEvent {
  return event(TICKET_EVENT_TYPES.tagsChanged, ticket, { ...base(ticket), added, removed, tags: ticket.tags, actor });
}

export function fieldsChanged(ticket: Ticket, changed: FieldValues, actor: Actor): NewEvent {
  return event(TICKET_EVENT_TYPES.fieldsChanged, ticket, { ...base(ticket), changed, fields: ticket.fields, actor });
}

/** A ticket was deleted with its events and breadcrumbs (a player's erasure); ids only. */
export function ticketDeleted(
  companyId: string,
  ticket: { id: string; runningId: number; gameId: string },
  reason: "player_erased",
): NewEvent {
  return newEvent(TICKET_EVENT_TYPES.deleted, companyId, { ticketId: ticket.id, runningId: ticket.runningId, gameId: ticket.gameId, reason });
}
