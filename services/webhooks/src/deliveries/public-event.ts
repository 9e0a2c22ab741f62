// Domain events of the tickets and players services turned into public events: the type a
// studio subscribes to and the `data` it receives, in the public API's camelCase vocabulary.
// Only what the domain event carries is passed on; private notes travel only as their own
// type (ticket.private_note_added), which a subscription must ask for. Pure.
import type { EventEnvelope } from "@support/bus";
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

const str = (value: unknown): string | null => (typeof value === "string" ? value : null);

function pick(data: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) if (name in data) picked[name] = data[name];
  return picked;
}

/** The ticket fields a public ticket event starts with. */
function ticketRef(data: Record<string, unknown>) {
  return { ticketId: data.ticketId, runningId: data.runningId, gameId: data.gameId };
}

const ticketEventFields: Record<string, { type: PublicEventType; fields: string[] }> = {
  "tickets.ticket.status_changed": { type: "ticket.status_changed", fields: ["from", "to", "resolutionType", "actor"] },
  "tickets.ticket.assigned": { type: "ticket.assigned", fields: ["assigneeId", "previousAssigneeId", "actor"] },
  "tickets.ticket.tags_changed": { type: "ticket.tags_changed", fields: ["added", "removed", "tags", "actor"] },
  "tickets.ticket.fields_changed": { type: "ticket.fields_changed", fields: ["changed", "fields", "actor"] },
  "tickets.ticket.rated": { type: "ticket.rated", fields: ["eventId", "score", "review", "actor"] },
  "tickets.ticket.collector_result_added": { type: "ticket.collector_result_added", fields: ["eventId", "collectorId", "resultId", "title", "fields", "actor"] },
  "tickets.ticket.deleted": { type: "ticket.deleted", fields: ["reason"] },
};

/** The public events of one domain event (none for the types studios do not see). */
export function publicEventsOf(event: EventEnvelope): PublicEvent[] {
  const data = event.data;
  if (event.type.startsWith("tickets.ticket.")) {
    const ticketId = event.type === "tickets.ticket.created" ? str(data.id) : str(data.ticketId);
    if (ticketId === null) return [];
    const gameId = str(data.gameId);
    const base = { gameId, orderingKey: `ticket:${ticketId}`, ticketId, playerId: null };
    switch (event.type) {
      case "tickets.ticket.created": {
        // The ticket as the REST API lists it; assigneeId is not part of that shape.
        const { assigneeId: _assignee, ...ticket } = data;
        return [{ ...base, type: "ticket.created", data: { ticketId, runningId: data.runningId, gameId, ticket } }];
      }
      case "tickets.ticket.message_added": {
        const type = data.type === "PRIVATE_NOTE" ? "ticket.private_note_added" : "ticket.message_added";
        const fields = type === "ticket.private_note_added" ? ["eventId", "message", "attachments", "actor"] : ["eventId", "type", "message", "language", "attachments", "actor"];
        return [{ ...base, type, data: { ...ticketRef(data), ...pick(data, fields) } }];
      }
      case "tickets.ticket.closed": {
        const closed = { ...ticketRef(data), ...pick(data, ["resolutionType", "closedAt", "actor"]) };
        const events: PublicEvent[] = [{ ...base, type: "ticket.closed", data: closed }];
        if (data.resolutionType === "resolved") events.push({ ...base, type: "ticket.resolved", data: closed });
        return events;
      }
      default: {
        const mapped = ticketEventFields[event.type];
        return mapped ? [{ ...base, type: mapped.type, data: { ...ticketRef(data), ...pick(data, mapped.fields) } }] : [];
      }
    }
  }
  if (event.type === "players.player.deleted") {
    const playerId = str(data.playerId);
    if (playerId === null) return [];
    return [
      {
        type: "player.deleted",
        gameId: str(data.gameId),
        orderingKey: `player:${playerId}`,
        ticketId: null,
        playerId,
        // Ids, times and counts only: who asked (an API key id) stays internal.
        data: { servicePlayerId: playerId, ...pick(data, ["gameId", "erasureId", "trigger", "requestedAt", "completedAt", "counts"]) },
      },
    ];
  }
  return [];
}
