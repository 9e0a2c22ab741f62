import { randomUUID } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { defineEvent } from "./contract.ts";
import { newEvent, publishedEventProblems, readAgainst, readEvent } from "./events.ts";

const companyId = randomUUID();
const gameDeleted = { id: randomUUID(), deletedAt: "2026-11-26T10:00:00.000Z" };
const envelope = (type: string, data: unknown, version?: number) => ({ id: randomUUID(), type, version, occurredAt: "2026-11-26T10:00:00.000Z", companyId, data });

describe("newEvent", () => {
  it("stamps the type's current version on data that matches the contract", () => {
    expect(newEvent("content.game.deleted", companyId, gameDeleted)).toEqual({ type: "content.game.deleted", version: 1, companyId, data: gameDeleted });
  });

  it("refuses data that does not match, saying what is wrong", () => {
    const bad = { ...gameDeleted, deletedAt: "yesterday" } as typeof gameDeleted;
    expect(() => newEvent("content.game.deleted", companyId, bad)).toThrow('content.game.deleted v1 does not match its contract: data/deletedAt must match format "date-time"');
    // @ts-expect-error: the type checker refuses a missing property before the run does.
    expect(() => newEvent("content.game.deleted", companyId, { id: gameDeleted.id })).toThrow("must have required property 'deletedAt'");
  });

  it("refuses a property the contract does not name: every property in flight is in the contract", () => {
    const extra = { ...gameDeleted, deletedBy: "operator" };
    expect(() => newEvent("content.game.deleted", companyId, extra)).toThrow("data must NOT have additional properties");
    // Nested objects too.
    const jwks = { keys: [{ kty: "OKP", crv: "Ed25519", x: "abc" }], comment: "x" } as unknown as { keys: { kty: string }[] };
    const game = { id: gameDeleted.id, name: "G", slug: "g", languages: ["en"], blockUnverifiedPlayers: false, metadataJwks: jwks, createdAt: gameDeleted.deletedAt, updatedAt: gameDeleted.deletedAt };
    expect(() => newEvent("content.game.created", companyId, game)).toThrow("data/metadataJwks must NOT have additional properties");
  });
});

describe("publishedEventProblems", () => {
  it("finds nothing wrong with an event as newEvent writes it, and names what is wrong otherwise", () => {
    expect(publishedEventProblems({ ...envelope("content.game.deleted", gameDeleted), version: 1 })).toEqual([]);
    expect(publishedEventProblems({ ...envelope("content.game.deleted", { ...gameDeleted, extra: 1 }, 2), id: "e1" })).toEqual([
      "id is not a uuid",
      "content.game.deleted is at version 1, not 2",
      "content.game.deleted: data must NOT have additional properties",
    ]);
    expect(publishedEventProblems(envelope("content.game.archived", gameDeleted))).toEqual(["content.game.archived is not in the contract"]);
  });
});

describe("readEvent", () => {
  it("gives the typed event of a known type and version (absent: 1)", () => {
    const read = readEvent(envelope("content.game.deleted", gameDeleted));
    expect(read).toMatchObject({ event: { type: "content.game.deleted", version: 1, companyId, data: gameDeleted } });
  });

  it("tolerates a property added by a newer producer", () => {
    expect(readEvent(envelope("content.game.deleted", { ...gameDeleted, deletedBy: "operator" }, 1))).toHaveProperty("event");
  });

  it("names a type this release does not define, a version it does not read, and data that does not match", () => {
    expect(readEvent(envelope("content.game.archived", gameDeleted))).toEqual({ unknownType: "content.game.archived" });
    expect(readEvent(envelope("content.game.deleted", gameDeleted, 2))).toEqual({ reason: "unknown_version", detail: "content.game.deleted v2: this release reads 1" });
    expect(readEvent(envelope("content.game.deleted", { id: "7" }))).toMatchObject({ reason: "invalid_data", detail: expect.stringContaining("content.game.deleted v1: data must have required property 'deletedAt'") });
  });

  it("lifts an earlier version's data to the current shape", () => {
    const renamed = defineEvent({
      type: "demo.thing.renamed",
      description: "v2 split `name` into `first` and `last`.",
      version: 2,
      schema: Type.Object({ first: Type.String(), last: Type.String() }),
      earlier: {
        1: {
          schema: Type.Object({ name: Type.String() }),
          upcast: (data) => {
            const [first = "", last = ""] = (data as { name: string }).name.split(" ");
            return { first, last };
          },
        },
      },
    });
    expect(readAgainst(renamed, envelope(renamed.type, { name: "Ada Lovelace" }, 1))).toMatchObject({ event: { version: 1, data: { first: "Ada", last: "Lovelace" } } });
    expect(readAgainst(renamed, envelope(renamed.type, { first: "Ada", last: "L" }, 2))).toMatchObject({ event: { version: 2, data: { first: "Ada", last: "L" } } });
    expect(readAgainst(renamed, envelope(renamed.type, { first: "Ada" }, 1))).toMatchObject({ reason: "invalid_data" });
    expect(readAgainst(renamed, envelope(renamed.type, { name: "x" }, 3))).toEqual({ reason: "unknown_version", detail: "demo.thing.renamed v3: this release reads 1, 2" });
  });
});
