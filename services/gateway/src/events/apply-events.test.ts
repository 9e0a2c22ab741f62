// What each of the gateway's event subscriptions does with an event it reads through the
// contract, one it cannot read (a newer type or version), and a message that is no envelope.
import { randomUUID } from "node:crypto";
import type { CoreRead, EventEnvelope } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import { describe, expect, it } from "vitest";
import { AGENT_SESSIONS_ENDED, applyAgentSessionsEnded } from "./agent-sessions-ended.consumer.ts";
import { applyContentEvent } from "./content-changed.consumer.ts";
import { applySessionEvent } from "./session-changed.consumer.ts";
import { applyTicketEvent } from "./ticket-events.consumer.ts";

const companyId = randomUUID();
const at = "2026-11-26T10:00:00.000Z";
const envelope = (type: string, data: Record<string, unknown>, version = 1): EventEnvelope => ({ id: randomUUID(), type, version, occurredAt: at, companyId, data });
/** As coreEventReader gives it: the typed event, or the envelope it could not read. */
function read(message: EventEnvelope): CoreRead<DomainEvent> {
  const result = readEvent(message);
  if ("event" in result) return result;
  return "unknownType" in result ? { ignored: result.unknownType, envelope: message } : { skipped: result.reason, envelope: message };
}
const notAnEnvelope: CoreRead<DomainEvent> = { skipped: "not_envelope" };

function recorder() {
  const calls: string[] = [];
  const record = (name: string) => (arg?: string) => void calls.push(arg === undefined ? name : `${name} ${arg}`);
  return { calls, reference: { evictCompany: record("evictCompany"), clear: record("clearReference") }, keys: { evict: record("evictKey"), clear: record("clearKeys") }, sessions: { invalidate: record("invalidate"), clear: record("clearSessions") }, hub: { nudge: record("nudge"), nudgeAll: record("nudgeAll") } };
}

describe("content events", () => {
  const keyHash = "a".repeat(64);
  const revoked = { apiKeyId: randomUUID(), name: "k", keyPrefix: "psk_abc", keyHash, createdAt: at, revokedAt: at };

  it("evict the company, and the key an API key event names", () => {
    const r = recorder();
    applyContentEvent(read(envelope("content.api_key.revoked", revoked)), { reference: r.reference, keys: r.keys } as never);
    applyContentEvent(read(envelope("content.game.deleted", { id: randomUUID(), deletedAt: at })), { reference: r.reference, keys: r.keys } as never);
    expect(r.calls).toEqual([`evictCompany ${companyId}`, `evictKey ${keyHash}`, `evictCompany ${companyId}`]);
  });

  it("keep everything for ended agent sessions and audit log entries, which change no reference data", () => {
    const r = recorder();
    const entry = { auditEntryId: "7", action: "sign_in.succeeded", userId: null, actor: { type: "anonymous", id: null }, target: null, before: null, after: null, detail: {}, clientAddress: null, createdAt: at };
    applyContentEvent(read(envelope("content.audit.recorded", entry)), { reference: r.reference, keys: r.keys } as never);
    applyContentEvent(read(envelope(AGENT_SESSIONS_ENDED, { userId: randomUUID(), sessionIds: [randomUUID()], reason: "signed_out" })), { reference: r.reference, keys: r.keys } as never);
    expect(r.calls).toEqual([]);
  });

  it("still evict the company and every key for an event this release cannot read, and nothing for a message that is no envelope", () => {
    const r = recorder();
    applyContentEvent(read(envelope("content.api_key.revoked", revoked, 2)), { reference: r.reference, keys: r.keys } as never);
    applyContentEvent(read(envelope("content.brand.updated", {})), { reference: r.reference, keys: r.keys } as never);
    applyContentEvent(notAnEnvelope, { reference: r.reference, keys: r.keys } as never);
    expect(r.calls).toEqual([`evictCompany ${companyId}`, "clearKeys", `evictCompany ${companyId}`, "clearKeys"]);
  });
});

describe("session events", () => {
  it("mark the sessions they name; an unreadable envelope clears the cache, no envelope changes nothing", () => {
    const r = recorder();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    applySessionEvent(read(envelope("players.session.verified", { sessionId: a, gameId: randomUUID(), emailVerifiedAt: at })), r.sessions);
    applySessionEvent(read(envelope("players.session.ended", { sessionIds: [b, c], reason: "player_erased" })), r.sessions);
    applySessionEvent(read(envelope("players.session.ended", { sessionIds: [] , reason: "player_erased" })), r.sessions);
    applySessionEvent(notAnEnvelope, r.sessions);
    expect(r.calls).toEqual([`invalidate ${a}`, `invalidate ${b}`, `invalidate ${c}`, "clearSessions"]);
  });
});

describe("ticket events", () => {
  it("nudge the ticket they are about; an unreadable envelope nudges every stream, no envelope none", () => {
    const r = recorder();
    const ticketId = randomUUID();
    const ref = { ticketId, runningId: 3, gameId: randomUUID() };
    applyTicketEvent(read(envelope("tickets.ticket.assigned", { ...ref, assigneeId: null, previousAssigneeId: null, actor: { type: "system", id: "x" } })), r.hub);
    applyTicketEvent(read(envelope("tickets.ticket.assigned", { ...ref }, 1)), r.hub);
    applyTicketEvent(notAnEnvelope, r.hub);
    expect(r.calls).toEqual([`nudge ${ticketId}`, "nudgeAll"]);
  });
});

describe("support application session events", () => {
  const sessionIds = [randomUUID(), randomUUID()];
  const ended = envelope(AGENT_SESSIONS_ENDED, { userId: randomUUID(), sessionIds, reason: "signed_out_everywhere" });

  it("mark the ended sessions", () => {
    const r = recorder();
    applyAgentSessionsEnded(read(ended), r.sessions);
    expect(r.calls).toEqual(sessionIds.map((id) => `invalidate ${id}`));
  });

  it("clear the cache for an unreadable envelope, and do nothing for a message that is no envelope or another event", () => {
    const r = recorder();
    applyAgentSessionsEnded({ skipped: "invalid_data", envelope: ended }, r.sessions);
    applyAgentSessionsEnded(notAnEnvelope, r.sessions);
    applyAgentSessionsEnded(read(envelope("content.game.deleted", { id: randomUUID(), deletedAt: at })), r.sessions);
    expect(r.calls).toEqual(["clearSessions"]);
  });

  it("leave the reference caches and API keys alone (the content.> subscription sees them too)", () => {
    const r = recorder();
    applyContentEvent(read(ended), { reference: r.reference, keys: r.keys } as never);
    applyContentEvent({ skipped: "invalid_data", envelope: ended }, { reference: r.reference, keys: r.keys } as never);
    expect(r.calls).toEqual([]);
  });
});
