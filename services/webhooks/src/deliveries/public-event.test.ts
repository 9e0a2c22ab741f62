import { randomUUID } from "node:crypto";
import { readEvent, type DomainEvent } from "@support/events";
import { describe, expect, it } from "vitest";
import { publicEventsOf } from "./public-event.ts";

const ref = { ticketId: "7b0f3a52-5a43-4e0a-9d7f-0c3c1b2f9a11", runningId: 12, gameId: "0d3f6f55-6a43-4b4a-8a55-0f4c8f7b2d10" };
const playerId = "3c7e1f0a-2b4d-4e6f-8a1c-5d7e9f0b2c4e";
/** An event as the consumer gets it: read against the contract, so the data must match it. */
function envelope(type: string, data: Record<string, unknown>): DomainEvent {
  const read = readEvent({ id: randomUUID(), type, version: 1, occurredAt: "2026-11-28T12:00:00.000Z", companyId: randomUUID(), data });
  if (!("event" in read)) throw new Error(`not an event: ${JSON.stringify(read)}`);
  return read.event;
}
const actor = { type: "user", id: "u1" };
const eventId = randomUUID();

describe("public events", () => {
  it("keeps private notes out of ticket.message_added", () => {
    const note = publicEventsOf(envelope("tickets.ticket.message_added", { ...ref, eventId, type: "PRIVATE_NOTE", message: "internal", language: null, attachments: [], actor }));
    expect(note.map((e) => e.type)).toEqual(["ticket.private_note_added"]);
    const message = publicEventsOf(envelope("tickets.ticket.message_added", { ...ref, eventId, type: "AGENT_MESSAGE", message: "hi", language: "en", attachments: [], actor }));
    expect(message).toMatchObject([{ type: "ticket.message_added", orderingKey: `ticket:${ref.ticketId}`, data: { ...ref, message: "hi", type: "AGENT_MESSAGE" } }]);
  });

  it("announces a resolved close as ticket.closed and ticket.resolved", () => {
    const closed = publicEventsOf(envelope("tickets.ticket.closed", { ...ref, resolutionType: "resolved", closedAt: "2026-11-28T12:00:00.000Z", actor }));
    expect(closed.map((e) => e.type)).toEqual(["ticket.closed", "ticket.resolved"]);
    const rejected = publicEventsOf(envelope("tickets.ticket.closed", { ...ref, resolutionType: "rejected", closedAt: "2026-11-28T12:00:00.000Z", actor }));
    expect(rejected.map((e) => e.type)).toEqual(["ticket.closed"]);
  });

  it("announces a merge as the source's ticket.closed with followUpTicketId, and nothing of its own", () => {
    const followUpTicketId = randomUUID();
    const closed = publicEventsOf(envelope("tickets.ticket.closed", { ...ref, resolutionType: "merged", closedAt: "2026-11-28T12:00:00.000Z", actor, followUpTicketId }));
    expect(closed).toMatchObject([{ type: "ticket.closed", data: { ...ref, resolutionType: "merged", followUpTicketId } }]);
    const merged = publicEventsOf(envelope("tickets.ticket.merged", {
      ...ref, targetTicketId: followUpTicketId, targetRunningId: 13, copiedEvents: 2, addedTags: ["vip"], actor,
    }));
    expect(merged).toEqual([]);
  });

  it("passes on an incident of outbreak detection as incident.opened, of its game, and not a ticket joining it", () => {
    const incidentId = randomUUID();
    const data = { incidentId, gameId: ref.gameId, title: "Can't log in", openedAt: "2026-11-28T12:00:00.000Z", ticketIds: [ref.ticketId, randomUUID()] };
    expect(publicEventsOf(envelope("tickets.incident.opened", data))).toEqual([
      { type: "incident.opened", gameId: ref.gameId, orderingKey: `incident:${incidentId}`, ticketId: null, playerId: null, data },
    ]);
    // A ticket joining it later is internal (rules' outbreak trigger): no webhook.
    expect(publicEventsOf(envelope("tickets.incident.ticket_joined", { incidentId, gameId: ref.gameId, ticketId: randomUUID(), similarity: 0.8, joinedAt: "2026-11-28T12:05:00.000Z" }))).toEqual([]);
  });

  it("passes on ids and counts of an erasure, not who asked", () => {
    const [deleted] = publicEventsOf(
      envelope("players.player.deleted", {
        playerId, gameId: ref.gameId, erasureId: randomUUID(), trigger: "immediate", requestedBy: { type: "api_key", id: "k1" },
        requestedAt: "2026-11-28T12:00:00.000Z", completedAt: "2026-11-28T12:00:01.000Z", counts: { tickets: { tickets: 1 } },
      }),
    );
    expect(deleted).toMatchObject({ type: "player.deleted", orderingKey: `player:${playerId}`, data: { servicePlayerId: playerId, counts: { tickets: { tickets: 1 } } } });
    expect(deleted!.data).not.toHaveProperty("requestedBy");
  });

  it("passes on an audit log entry as audit.recorded, about the company as a whole", () => {
    const entry = {
      auditEntryId: "42", action: "api_key.revoked", userId: null, actor: { type: "user", id: randomUUID() }, target: { type: "api_key", id: randomUUID() },
      before: { name: "k", revokedAt: null }, after: { name: "k", revokedAt: "2026-11-28T12:00:00.000Z" }, detail: {}, clientAddress: "203.0.113.7", createdAt: "2026-11-28T12:00:00.000Z",
    };
    const [recorded, ...others] = publicEventsOf(envelope("content.audit.recorded", entry));
    expect(others).toEqual([]);
    const { auditEntryId, ...rest } = entry;
    expect(recorded).toEqual({ type: "audit.recorded", gameId: null, orderingKey: "audit", ticketId: null, playerId: null, data: { id: auditEntryId, ...rest } });
  });

  it("ignores events studios do not see", () => {
    expect(publicEventsOf(envelope("players.player.created", { playerId, gameId: ref.gameId, externalId: null, name: "Pat", email: null, tier: null, blocked: false }))).toEqual([]);
    expect(publicEventsOf(envelope("players.deletion.started", { playerId, gameId: ref.gameId, erasureId: randomUUID(), trigger: "immediate" }))).toEqual([]);
  });
});
