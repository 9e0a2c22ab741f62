// Idempotency-Key across a crash: the tickets service is SIGKILLed while a POST /tickets with
// a key is inside its transaction (held there by a row lock this test takes), restarted, and
// the client retries with the same key. The key's record commits with the ticket or not at
// all, so the retry does the work exactly once, and a further retry replays it.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { progress, waitUntil, type FaultStack } from "../src/stack.ts";
import { startScenario } from "../src/tenant.ts";
import type { LoadTarget } from "../src/load.ts";

describe("Idempotency-Key across a crash of the tickets service", () => {
  let stack: FaultStack;
  let target: LoadTarget;

  beforeAll(async () => {
    ({ stack, target } = await startScenario());
  });
  afterAll(() => stack?.stop());

  const createTicket = async (body: unknown, idempotencyKey?: string) => {
    const response = await fetch(`${target.gateway}/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json", ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      body: JSON.stringify(body),
    });
    return { status: response.status, replayed: response.headers.get("idempotent-replayed"), body: (await response.json()) as Record<string, unknown> };
  };
  const ticketBody = (playerId: string) => ({
    gameId: target.gameId,
    message: `The hangar door is stuck ${playerId}`,
    language: "en",
    channels: ["email"],
    metadata: { player: { id: playerId, email: `${playerId}@example.com` } },
  });
  const ticketsOf = async (playerId: string) => {
    const response = await fetch(`${target.gateway}/tickets?playerId=${playerId}`, { headers: { authorization: `Bearer ${target.key}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { tickets: { id: string }[] }).tickets;
  };

  it("does the work once when the client retries after the service died mid-request", async () => {
    // The company's counter row exists once it has a ticket; the creation waits for its lock.
    expect((await createTicket(ticketBody(`player-${randomUUID()}`))).status).toBe(200);
    const holder = new pg.Client({ connectionString: stack.databaseUrl });
    holder.on("error", () => undefined);
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select 1 from tickets.ticket_counters where company_id = $1 for update", [target.companyId]);

      const playerId = `player-${randomUUID()}`;
      const key = randomUUID();
      const inFlight = createTicket(ticketBody(playerId), key);
      await waitUntil(
        "the creation waiting for the counter lock",
        async () => (await stack.query(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%ticket_counters%'`)).length > 0,
        30_000,
        50,
      );
      await stack.signal("tickets", "SIGKILL");
      progress("tickets SIGKILLed inside the transaction");
      const lost = await inFlight;
      expect(lost.status).toBe(503);
      // The orphaned transaction goes on once the lock is free and dies when it answers nobody.
      await holder.query("commit");

      stack.startProcess("tickets");
      await stack.waitUntilReady(60_000);
      progress("tickets started again");
      // Until the orphaned transaction has rolled back, its key is still locked: 409, retry. And
      // until the gateway's breaker lets calls to the new tickets process through, 503: retry,
      // as a client does (neither answer did any work).
      let retry: Awaited<ReturnType<typeof createTicket>> | undefined;
      await waitUntil("a retry that is neither 409 nor 503", async () => ![409, 503].includes((retry = await createTicket(ticketBody(playerId), key)).status), 30_000);
      if (retry === undefined) throw new Error("no retry");
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.replayed).toBeNull();
      const tickets = await ticketsOf(playerId);
      expect(tickets.map((t) => t.id)).toEqual([retry.body.ticketId]);

      const again = await createTicket(ticketBody(playerId), key);
      expect(again).toEqual({ status: 200, replayed: "true", body: retry.body });
      expect(await ticketsOf(playerId)).toHaveLength(1);
      expect(stack.unexpectedExits).toEqual([]);
    } finally {
      await holder.end().catch(() => undefined);
    }
  });
});
