// Domain events of the tickets, players and content services turned into public events: the type a
// studio subscribes to and the `data` it receives, in the public API's camelCase vocabulary.
// Only what the domain event carries is passed on; private notes travel only as their own
// type (ticket.private_note_added), which a subscription must ask for. Pure; typed by the event
// contract, so a field a public event passes on cannot vanish from its domain event unnoticed.
import type { DomainEvent, EventData, EventType } from "@support/events";
import type { PublicEventType } from "../webhooks/webhook.ts";

export interface PublicEvent {
  type: PublicEventType;
  /** The game the event is about (game filters); null when it names none. */
  gameId: string | null;
  /** Deliveries with the same key are sent in order: the ticket, or the player. */
  orderingKey: string;
  ticketId: string | null;
  playerId: string | null;
  data: Record<string, unknown>;
}

/** The Standard Webhooks body: {type, timestamp, data}. */
export function payloadOf(type: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp, data });
}

function pick<T extends object, K extends keyof T>(data: T, names: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const name of names) if (name in data) picked[name] = data[name];
  return picked;
}

type TicketEvent = Exclude<DomainEvent<Extract<EventType, `tickets.ticket.${string}`>>, DomainEvent<"tickets.ticket.created">>;

/** The ticket fields a public ticket event starts with. */
function ticketRef(data: TicketEvent["data"]) {
  return { ticketId: data.ticketId, runningId: data.runningId, gameId: data.gameId };
}

/** The public type and the fields of each ticket event whose data passes on as it is (a subset). */
const ticketEventFields = {
  "tickets.ticket.status_changed": { type: "ticket.status_changed", fields: ["from", "to", "resolutionType", "actor"] },
  "tickets.ticket.assigned": { type: "ticket.assigned", fields: ["assigneeId", "previousAssigneeId", "actor"] },
  "tickets.ticket.tags_changed": { type: "ticket.tags_changed", fields: ["added", "removed", "tags", "actor"] },
  "tickets.ticket.fields_changed": { type: "ticket.fields_changed", fields: ["changed", "fields", "actor"] },
  "tickets.ticket.rated": { type: "ticket.rated", fields: ["eventId", "score", "review", "actor"] },
  "tickets.ticket.collector_result_added": { type: "ticket.collector_result_added", fields: ["eventId", "collectorId", "resultId", "title", "fields", "actor"] },
  "tickets.ticket.deleted": { type: "ticket.deleted", fields: ["reason"] },
  "tickets.ticket.sla_warning": { type: "ticket.sla_warning", fields: ["policyId", "policyName", "metric", "cycle", "dueAt", "targetMinutes", "assigneeId", "actor"] },
  "tickets.ticket.sla_breached": { type: "ticket.sla_breached", fields: ["policyId", "policyName", "metric", "cycle", "dueAt", "targetMinutes", "assigneeId", "actor"] },
} as const satisfies {
  [T in Exclude<TicketEvent["type"], "tickets.ticket.message_added" | "tickets.ticket.closed" | "tickets.ticket.merged">]: { type: PublicEventType; fields: readonly (keyof EventData<T>)[] };
};

/** The public events of one domain event (none for the types studios do not see). */
export function publicEventsOf(event: DomainEvent): PublicEvent[] {
  if (event.type === "tickets.ticket.created") {
    // The ticket as the REST API lists it; assigneeId is not part of that shape.
    const { assigneeId: _assignee, ...ticket } = event.data;
    const ticketId = ticket.id;
    return [
      { type: "ticket.created", gameId: ticket.gameId, orderingKey: `ticket:${ticketId}`, ticketId, playerId: null, data: { ticketId, runningId: ticket.runningId, gameId: ticket.gameId, ticket } },
    ];
  }
  if (event.type.startsWith("tickets.ticket.")) {
    const ticketEvent = event as TicketEvent;
    const { data } = ticketEvent;
    const base = { gameId: data.gameId, orderingKey: `ticket:${data.ticketId}`, ticketId: data.ticketId, playerId: null };
    switch (ticketEvent.type) {
      case "tickets.ticket.message_added": {
        const { data } = ticketEvent;
        const note = data.type === "PRIVATE_NOTE";
        const fields = note ? pick(data, ["eventId", "message", "attachments", "actor"]) : pick(data, ["eventId", "type", "message", "language", "attachments", "actor", "channel"]);
        return [{ ...base, type: note ? "ticket.private_note_added" : "ticket.message_added", data: { ...ticketRef(data), ...fields } }];
      }
      case "tickets.ticket.closed": {
        const { data } = ticketEvent;
        // followUpTicketId only comes with resolutionType merged: the ticket the studio should follow.
        const closed = { ...ticketRef(data), ...pick(data, ["resolutionType", "closedAt", "actor", "followUpTicketId"]) };
        const events: PublicEvent[] = [{ ...base, type: "ticket.closed", data: closed }];
        if (data.resolutionType === "resolved") events.push({ ...base, type: "ticket.resolved", data: closed });
        return events;
      }
      case "tickets.ticket.merged":
        // No public type of its own: a subscription learns of a merge from the source's
        // ticket.status_changed and ticket.closed (resolutionType merged, followUpTicketId).
        return [];
      default: {
        const mapped = ticketEventFields[ticketEvent.type];
        return [{ ...base, type: mapped.type, data: { ...ticketRef(data), ...pick(data as Record<string, unknown>, mapped.fields) } }];
      }
    }
  }
  if (event.type === "tickets.incident.opened") {
    const { data } = event;
    // Outbreak detection opened an incident (docs/automation.md, "Outbreaks"): as the event says it.
    return [
      {
        type: "incident.opened",
        gameId: data.gameId,
        orderingKey: `incident:${data.incidentId}`,
        ticketId: null,
        playerId: null,
        data: { incidentId: data.incidentId, gameId: data.gameId, title: data.title, openedAt: data.openedAt, ticketIds: data.ticketIds },
      },
    ];
  }
  if (event.type === "players.player.deleted") {
    const { data } = event;
    return [
      {
        type: "player.deleted",
        gameId: data.gameId,
        orderingKey: `player:${data.playerId}`,
        ticketId: null,
        playerId: data.playerId,
        // Ids, times and counts only: who asked (an API key id) stays internal.
        data: { servicePlayerId: data.playerId, ...pick(data, ["gameId", "erasureId", "trigger", "requestedAt", "completedAt", "counts"]) },
      },
    ];
  }
  if (event.type === "content.audit.recorded") {
    const { data } = event;
    // The company's audit log as its admins read it (`GET /agent-api/audit-log`), one entry each,
    // in the order they were written.
    return [
      {
        type: "audit.recorded",
        gameId: null,
        orderingKey: "audit",
        ticketId: null,
        playerId: null,
        data: {
          id: data.auditEntryId, action: data.action, userId: data.userId, actor: data.actor, target: data.target,
          before: data.before, after: data.after, detail: data.detail, clientAddress: data.clientAddress, createdAt: data.createdAt,
        },
      },
    ];
  }
  return [];
}
