// The agents' live feed against a real NATS JetStream: changes of tickets fanned out per
// company as they are published, read again after a reconnect from memory or, past the memory,
// from the stream, and "gone" when the stream no longer holds them.
import { randomUUID } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connectBus, createEnvelope, ensureStream, streamNameFor, subjectFor, type NatsConnection } from "@support/bus";
import { newEvent } from "@support/events";
import { createLogger } from "@support/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentLiveFeed, toFeedChange, type FeedChange } from "./live-feed.ts";

const logger = createLogger({ service: "live-feed-test", level: "silent" });
const companyA = randomUUID();
const companyB = randomUUID();
const gameId = randomUUID();
const actor = { type: "user" as const, id: randomUUID() };

describe("the agents' live feed", () => {
  let nc: NatsConnection;
  const prefix = `t_live_${randomUUID().slice(0, 8)}_`;
  const stream = streamNameFor(prefix, "tickets");
  const feeds: AgentLiveFeed[] = [];

  async function publish(companyId: string, ticketId: string, assigneeId: string | null): Promise<number> {
    const event = newEvent("tickets.ticket.assigned", companyId, { ticketId, runningId: 7, gameId, assigneeId, previousAssigneeId: null, actor });
    const ack = await jetstream(nc).publish(subjectFor(prefix, event.type), JSON.stringify(createEnvelope(event)));
    return ack.seq;
  }

  async function startFeed(capacity?: number): Promise<AgentLiveFeed> {
    const feed = new AgentLiveFeed({ nc, natsPrefix: prefix, logger, ...(capacity ? { capacity } : {}) });
    await feed.start();
    feeds.push(feed);
    return feed;
  }

  beforeAll(async () => {
    nc = await connectBus(process.env.NATS_URL!, "live-feed-test");
    await ensureStream(nc, { name: stream, subjects: [`${prefix}tickets.>`] });
  });
  afterAll(async () => {
    for (const feed of feeds) await feed.stop();
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
    await nc.drain();
  });

  it("starts after the stream's end and hands each new change to the listeners of its company only", async () => {
    const before = await publish(companyA, randomUUID(), null);
    const feed = await startFeed();
    expect(feed.lastSeq).toBe(before);
    const seenA: FeedChange[] = [];
    const seenB: FeedChange[] = [];
    feed.listen(companyA, (change) => seenA.push(change));
    feed.listen(companyB, (change) => seenB.push(change));
    const ticketId = randomUUID();
    const seq = await publish(companyA, ticketId, actor.id);
    await expect.poll(() => seenA.length).toBe(1);
    expect(seenA[0]).toEqual({ seq, companyId: companyA, gameId, ticketId, runningId: 7, change: "assigned", occurredAt: expect.any(String), assigneeId: actor.id, actor });
    expect(seenB).toEqual([]);
    expect(feed.lastSeq).toBe(seq);
  });

  it("names the target of a merge, whose conversation changed too", () => {
    const ticketId = randomUUID();
    const targetTicketId = randomUUID();
    const event = newEvent("tickets.ticket.merged", companyA, { ticketId, runningId: 7, gameId, targetTicketId, targetRunningId: 6, copiedEvents: 2, addedTags: [], actor });
    const change = toFeedChange(41, new TextEncoder().encode(JSON.stringify(createEnvelope(event))));
    expect(change).toEqual({ seq: 41, companyId: companyA, gameId, ticketId, runningId: 7, change: "merged", occurredAt: expect.any(String), targetTicketId, actor });
  });

  it("carries an incident's opening, a ticket joining it and its closing, and nothing else of the stream", () => {
    const incidentId = randomUUID();
    const read = (event: Parameters<typeof createEnvelope>[0]) => toFeedChange(50, new TextEncoder().encode(JSON.stringify(createEnvelope(event))));
    const at = "2026-11-28T12:00:00.000Z";
    const common = { seq: 50, companyId: companyA, gameId, incidentId, occurredAt: expect.any(String) };
    expect(read(newEvent("tickets.incident.opened", companyA, { incidentId, gameId, title: "Can't log in", openedAt: at, ticketIds: [randomUUID()] }))).toEqual({ ...common, incidentChange: "opened" });
    expect(read(newEvent("tickets.incident.ticket_joined", companyA, { incidentId, gameId, ticketId: randomUUID(), similarity: 0.8, joinedAt: at }))).toEqual({ ...common, incidentChange: "ticket_joined" });
    expect(read(newEvent("tickets.incident.closed", companyA, { incidentId, gameId, closedAt: at, closedByUserId: actor.id }))).toEqual({ ...common, incidentChange: "closed" });
  });

  it("gives a reconnecting stream every change after its last id, from memory and, past it, from the stream", async () => {
    const feed = await startFeed(2);
    const from = feed.lastSeq;
    const published: number[] = [];
    for (let i = 0; i < 5; i++) published.push(await publish(i === 2 ? companyB : companyA, randomUUID(), null));
    await expect.poll(() => feed.lastSeq).toBe(published.at(-1));
    // Only the last two are in memory: the first three come from the stream again.
    const all = await feed.since(companyA, from);
    expect("changes" in all && all.changes.map((change) => change.seq)).toEqual([published[0], published[1], published[3], published[4]]);
    const recent = await feed.since(companyA, published[3]!);
    expect("changes" in recent && recent.changes.map((change) => change.seq)).toEqual([published[4]]);
    expect(await feed.since(companyA, published[4]!)).toEqual({ changes: [] });
  });

  it("says gone when the stream no longer holds the changes, or for an id it never gave", async () => {
    const feed = await startFeed(1);
    const first = await publish(companyA, randomUUID(), null);
    const second = await publish(companyA, randomUUID(), null);
    const third = await publish(companyA, randomUUID(), null);
    await expect.poll(() => feed.lastSeq).toBe(third);
    await (await jetstreamManager(nc)).streams.purge(stream, { seq: second });
    expect(await feed.since(companyA, first - 1)).toEqual({ gone: true });
    expect(await feed.since(companyA, third + 100)).toEqual({ gone: true });
    const kept = await feed.since(companyA, first);
    expect("changes" in kept && kept.changes.map((change) => change.seq)).toEqual([second, third]);
  });
});
