// The gateway's cached logos (routes/game-logos.ts) go with the game's branding or deletion
// event, all of them with an event this release cannot read, and none with other content events.
import { randomUUID } from "node:crypto";
import type { CoreRead, EventEnvelope } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import { describe, expect, it } from "vitest";
import { applyContentEvent } from "./content-changed.consumer.ts";

const companyId = randomUUID();
const at = "2026-11-26T10:00:00.000Z";
const envelope = (type: string, data: Record<string, unknown>, version = 1): EventEnvelope => ({ id: randomUUID(), type, version, occurredAt: at, companyId, data });
function read(message: EventEnvelope): CoreRead<DomainEvent> {
  const result = readEvent(message);
  if ("event" in result) return result;
  return "unknownType" in result ? { ignored: result.unknownType, envelope: message } : { skipped: result.reason, envelope: message };
}

function targets() {
  const calls: string[] = [];
  const noop = () => undefined;
  return {
    calls,
    value: {
      reference: { evictCompany: noop, clear: noop },
      keys: { evict: noop, clear: noop },
      logos: { evictGame: (gameId: string) => void calls.push(`evictGame ${gameId}`), clear: () => void calls.push("clearLogos"), get: noop },
    } as never,
  };
}

describe("cached logos", () => {
  it("go with the game's branding_updated or deleted event, and stay for other content events", () => {
    const t = targets();
    const gameId = randomUUID();
    const logo = { sha256: "a".repeat(64), contentType: "image/png", size: 100, width: 20, height: 20 };
    applyContentEvent(read(envelope("content.game.branding_updated", { gameId, accentColor: "#aabbcc", colorScheme: "dark", logo, updatedAt: at })), t.value);
    applyContentEvent(read(envelope("content.game.deleted", { id: gameId, deletedAt: at })), t.value);
    applyContentEvent(read(envelope("content.api_key.revoked", { apiKeyId: randomUUID(), name: "k", keyPrefix: "psk_abc", keyHash: "b".repeat(64), createdAt: at, revokedAt: at })), t.value);
    expect(t.calls).toEqual([`evictGame ${gameId}`, `evictGame ${gameId}`]);
  });

  it("all go with an event this release cannot read", () => {
    const t = targets();
    applyContentEvent(read(envelope("content.game.branding_updated", { gameId: randomUUID() }, 2)), t.value);
    expect(t.calls).toEqual(["clearLogos"]);
  });
});
