import { randomUUID } from "node:crypto";
import { createEnvelope } from "@support/bus";
import type { DomainEvent } from "@support/events";
import { describe, expect, it } from "vitest";
import { fanOut, listDeliveries } from "./delivery.service.ts";

/** A database handle that records what is asked of it and cannot run anything. */
function recordingDb() {
  const used: string[] = [];
  const db = new Proxy(
    {},
    {
      get(_target, name) {
        used.push(String(name));
        return () => {
          throw new Error("no database in this test");
        };
      },
    },
  );
  return { db: db as never, used };
}

// Only the ids fanOut reads, under any type: this test is about which statements run.
const envelope = (type: string) =>
  createEnvelope({ type, version: 1, companyId: randomUUID(), data: { id: randomUUID(), servicePlayerId: randomUUID(), ticketId: randomUUID(), playerId: randomUUID() } }) as unknown as DomainEvent;

describe("fan-out", () => {
  it("leaves the database alone for a domain event that is neither public nor part of an erasure", async () => {
    const { db, used } = recordingDb();
    for (const type of ["players.player.created", "players.player.updated", "players.session.created", "media.attachment.uploaded"]) {
      expect(await fanOut({ db, box: undefined as never, wake: () => undefined }, envelope(type))).toBe(0);
    }
    expect(used).toEqual([]);
  });

  it("opens a transaction only for an erasure; other events are single statements", async () => {
    for (const [type, first] of [
      ["tickets.ticket.created", "insertInto"], // remembers the ticket's player, then reads the subscriptions
      ["tickets.ticket.message_added", "selectFrom"], // reads the subscriptions
      ["tickets.ticket.deleted", "transaction"],
      ["players.deletion.started", "transaction"],
      ["players.player.deleted", "transaction"],
    ] as const) {
      const { db, used } = recordingDb();
      await expect(fanOut({ db, box: undefined as never, wake: () => undefined }, envelope(type)), type).rejects.toThrow(/no database/);
      expect(used, type).toEqual([first]);
    }
  });
});

describe("listing deliveries", () => {
  it("names bad query parameters /query/<name>, before reading anything", async () => {
    const { db, used } = recordingDb();
    const ctx = { db, wake: () => undefined } as unknown as Parameters<typeof listDeliveries>[0];
    await expect(listDeliveries(ctx, randomUUID(), randomUUID(), { limit: 500, cursor: "garbage", status: "nope" })).rejects.toMatchObject({
      code: "invalid_argument",
      details: {
        type: "VALIDATION_ERROR",
        issues: [
          { path: "/query/limit", message: "must be an integer from 1 to 100" },
          { path: "/query/cursor", message: "is not a cursor of this list" },
          { path: "/query/status", message: expect.stringContaining("must be one of") },
        ],
      },
    });
    expect(used).toEqual([]);
  });
});
