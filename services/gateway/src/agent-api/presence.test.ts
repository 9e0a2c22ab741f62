// Presence across two gateway replicas on a real NATS: what an agent says on one replica
// reaches the other's streams of the same company at once; typing falls back to viewing and
// viewing ends when not said again in time; "left" ends it at once; other companies hear
// nothing; a malformed message is dropped.
import { randomUUID } from "node:crypto";
import { connectBus, type NatsConnection } from "@support/bus";
import { createLogger } from "@support/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PresenceBoard, TYPING_TTL_MS, VIEWING_TTL_MS, type PresenceAnnouncement, type TicketPresence } from "./presence.ts";

const logger = createLogger({ service: "presence-test", level: "silent" });

describe("agent presence across replicas", () => {
  const prefix = `t_presence_${randomUUID().slice(0, 8)}_`;
  let ncA: NatsConnection;
  let ncB: NatsConnection;
  let now = 1_000_000;
  let a: PresenceBoard;
  let b: PresenceBoard;
  const company = randomUUID();
  const gameId = randomUUID();
  const ticketId = randomUUID();
  const ada = randomUUID();
  const bob = randomUUID();
  const say = (userId: string, displayName: string, state: PresenceAnnouncement["state"]): PresenceAnnouncement => ({ companyId: company, gameId, ticketId, userId, displayName, state });

  beforeAll(async () => {
    ncA = await connectBus(process.env.NATS_URL!, "presence-a");
    ncB = await connectBus(process.env.NATS_URL!, "presence-b");
    // A large sweep interval: the test sweeps by hand on its own clock.
    a = new PresenceBoard({ nc: ncA, natsPrefix: prefix, logger, clock: () => now, sweepMs: 3_600_000 });
    b = new PresenceBoard({ nc: ncB, natsPrefix: prefix, logger, clock: () => now, sweepMs: 3_600_000 });
    a.start();
    b.start();
    await Promise.all([ncA.flush(), ncB.flush()]);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await ncA?.drain();
    await ncB?.drain();
  });

  it("shows an agent's viewing and typing on the other replica, and ends them in time or at once", async () => {
    const onB: TicketPresence[] = [];
    const otherCompany: TicketPresence[] = [];
    b.listen(company, (presence) => onB.push(presence));
    b.listen(randomUUID(), (presence) => otherCompany.push(presence));

    a.announce(say(ada, "Ada", "viewing"));
    await expect.poll(() => onB.length, { timeout: 1000 }).toBe(1);
    expect(onB[0]).toEqual({ ticketId, gameId, agents: [{ userId: ada, displayName: "Ada", state: "viewing" }] });

    a.announce(say(bob, "Bob", "typing"));
    await expect.poll(() => onB.length, { timeout: 1000 }).toBe(2);
    expect(onB[1]!.agents).toEqual([
      { userId: ada, displayName: "Ada", state: "viewing" },
      { userId: bob, displayName: "Bob", state: "typing" },
    ]);
    expect(b.snapshot(company)).toEqual([onB[1]]);

    now += TYPING_TTL_MS + 1;
    b.sweep();
    expect(onB[2]!.agents.map((agent) => agent.state)).toEqual(["viewing", "viewing"]);

    a.announce(say(bob, "Bob", "left"));
    await expect.poll(() => onB.length, { timeout: 1000 }).toBe(4);
    expect(onB[3]!.agents.map((agent) => agent.userId)).toEqual([ada]);

    now += VIEWING_TTL_MS;
    b.sweep();
    expect(onB[4]).toEqual({ ticketId, gameId, agents: [] });
    expect(b.snapshot(company)).toEqual([]);
    expect(otherCompany).toEqual([]);
  });

  it("drops a malformed message and one that names the ticket under another company", async () => {
    const seen: TicketPresence[] = [];
    b.listen(company, (presence) => seen.push(presence));
    ncA.publish(`${prefix}gateway.agent_presence`, "{not json");
    ncA.publish(`${prefix}gateway.agent_presence`, JSON.stringify({ ...say(ada, "Ada", "viewing"), userId: "not-a-uuid" }));
    a.announce(say(ada, "Ada", "viewing"));
    await expect.poll(() => seen.length, { timeout: 1000 }).toBe(1);
    a.announce({ ...say(bob, "Bob", "viewing"), gameId: randomUUID() });
    a.announce(say(ada, "Ada", "typing"));
    await expect.poll(() => seen.length, { timeout: 1000 }).toBe(2);
    expect(seen[1]!.agents).toEqual([{ userId: ada, displayName: "Ada", state: "typing" }]);
  });
});
