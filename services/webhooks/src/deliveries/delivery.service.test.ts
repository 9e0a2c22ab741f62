import { randomUUID } from "node:crypto";
import { createEnvelope } from "@support/bus";
import { describe, expect, it } from "vitest";
import { fanOut } from "./delivery.service.ts";

/** A database handle that counts the transactions asked of it and cannot run one. */
function countingDb() {
  const db = {
    transactions: 0,
    transaction() {
      db.transactions += 1;
      return { execute: () => Promise.reject(new Error("no database in this test")) };
    },
  };
  return db;
}

describe("fan-out", () => {
  it("opens no transaction for a domain event that is neither public nor part of an erasure", async () => {
    const db = countingDb();
    const ctx = { db: db as never, wake: () => undefined };
    const companyId = randomUUID();
    for (const type of ["players.player.created", "players.player.updated", "players.session.created", "tickets.ticket.viewed_by_agent"]) {
      expect(await fanOut(ctx, createEnvelope({ type, companyId, data: { playerId: randomUUID(), ticketId: randomUUID() } }))).toBe(0);
    }
    expect(db.transactions).toBe(0);
    // A ticket's creation is remembered (its player, for a later erasure), a deletion erases:
    // both need the database even without any subscription.
    for (const type of ["tickets.ticket.created", "tickets.ticket.deleted", "players.deletion.started"]) {
      await expect(fanOut(ctx, createEnvelope({ type, companyId, data: { id: randomUUID(), ticketId: randomUUID(), playerId: randomUUID() } }))).rejects.toThrow(/no database/);
    }
    expect(db.transactions).toBe(3);
  });
});
