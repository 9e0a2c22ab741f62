// No message stops a consumer, on the whole stack: a message that is not JSON and an envelope of
// a version nobody knows are published on every subject a durable consumer filters on
// (tickets.ticket.> for webhooks-tickets, tickets.incident.> for the incidents' consumers of
// webhooks and rules, tickets.audit.> for content-tickets-audit, tickets.rule.> for webhooks-tickets-rules, players.> for webhooks-players, players.deletion.>
// for players-deletion, players.session.ended also for the gateway's session cache) and on
// content.> (the plain subscriptions of the gateway and tickets).
// Within seconds every consumer handles the next events (a new ticket is delivered to a webhook
// receiver; a scheduled deletion is erased and its player.deleted delivered), the bad messages
// wait in the dead-letter store, and each service's /metrics counted them.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { listDeadLetters } from "@support/bus";
import { freePort } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FaultStack, progress, waitUntil } from "../src/stack.ts";
import { tenant } from "../src/tenant.ts";

const companyIdOfNobody = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11";

describe("bad messages on every consumed subject", () => {
  let stack: FaultStack;
  let nc: NatsConnection;
  let receiver: http.Server;
  let key: string;
  let gameId: string;
  const metricsPorts: Record<string, number> = {};
  /** The webhook bodies the receiver got. */
  const received: { type: string; data: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        try {
          received.push(JSON.parse(body) as (typeof received)[number]);
        } catch {
          // not ours
        }
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    // The processes whose /metrics the test reads get a known metrics port each.
    stack = await FaultStack.start({}, { env: { PLAYER_DELETION_DELAY_SECONDS: "1" }, start: ["media"] });
    for (const name of ["content", "tickets", "players", "webhooks", "email", "gateway"] as const) {
      metricsPorts[name] = await freePort();
      stack.startProcess(name, { METRICS_PORT: String(metricsPorts[name]) });
    }
    await stack.waitUntilReady(90_000);
    const applied = (await stack.applyTenant({
      ...tenant,
      webhooks: [{ url: receiverUrl, events: ["ticket.created", "player.deleted"] }],
    })) as Awaited<ReturnType<FaultStack["applyTenant"]>>;
    key = applied.apiKeys.load!;
    gameId = applied.games.galaxy!.id;
    nc = await connect({ servers: stack.natsUrl, timeout: 5000 });
    progress("stack with a webhook receiver ready");
  });

  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  async function request(pathname: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(stack.gateway + pathname, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${key}`, ...(init.json !== undefined ? { "content-type": "application/json" } : {}) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** support_events_dead_lettered_total of one process: "consumer/reason" -> value. */
  async function deadLetteredCounts(process: string): Promise<Record<string, number>> {
    const text = await (await fetch(`http://127.0.0.1:${metricsPorts[process]}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const counts: Record<string, number> = {};
    for (const line of text.split("\n")) {
      if (!line.startsWith("support_events_dead_lettered_total{")) continue;
      const consumer = /consumer="([^"]+)"/.exec(line)![1];
      const reason = /reason="([^"]+)"/.exec(line)![1];
      counts[`${consumer}/${reason}`] = Number(line.slice(line.lastIndexOf(" ") + 1));
    }
    return counts;
  }

  it("keeps every consumer delivering the next events, keeps the bad ones, and counts them", async () => {
    const prefix = stack.natsPrefix;
    const js = jetstream(nc);
    const futureEnvelope = (type: string) =>
      JSON.stringify({ id: randomUUID(), version: 99, type, occurredAt: new Date().toISOString(), companyId: companyIdOfNobody, data: { shape: "of the future" } });
    // Into the streams: each subject is read by durable consumers (one at a time, for webhooks).
    // players.session.ended is also read by the gateway's plain subscription (its session cache).
    for (const type of ["tickets.ticket.created", "tickets.incident.opened", "tickets.audit.recorded", "tickets.rule.webhook_requested", "players.deletion.started", "players.session.ended"]) {
      await js.publish(`${prefix}${type}`, `not json at all: ${type}`);
      await js.publish(`${prefix}${type}`, futureEnvelope(type));
    }
    // Into content's stream, which plain subscriptions read (the gateway's and tickets') and the
    // email service's durable consumer (its games).
    // A type of the contract at a version nobody reads (a type nobody defines is acknowledged, not kept).
    await js.publish(`${prefix}content.game.created`, "not json at all: content");
    await js.publish(`${prefix}content.game.created`, futureEnvelope("content.game.created"));
    progress("bad messages published");

    // webhooks-tickets: a new ticket is delivered to the receiver.
    const playerId = `player-${randomUUID()}`;
    const created = await request("/tickets", {
      method: "POST",
      json: { gameId, message: "The hangar door is stuck", language: "en", channels: ["email"], metadata: { player: { id: playerId, email: `${playerId}@example.com` } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const ticketId = created.body.ticketId as string;
    await waitUntil(
      "the new ticket's webhook delivery",
      async () => received.some((hook) => hook.type === "ticket.created" && JSON.stringify(hook.data).includes(ticketId)),
      20_000,
    );
    progress("ticket.created delivered");

    // players-deletion and webhooks-players: a scheduled deletion (due after 1 s) is erased by the
    // deletion consumer, and its players.player.deleted is delivered as player.deleted.
    const listed = await request(`/tickets?playerId=${playerId}`);
    const servicePlayerId = (listed.body.tickets as { servicePlayerId: string }[])[0]!.servicePlayerId;
    const scheduled = await request("/player/schedule-deletion", { method: "POST", json: { servicePlayerId } });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    await waitUntil(
      "the erased player's player.deleted delivery",
      async () => received.some((hook) => hook.type === "player.deleted" && JSON.stringify(hook.data).includes(servicePlayerId)),
      30_000,
    );
    progress("player.deleted delivered");

    // The bad ones are in the dead-letter store, per consumer, with their reason.
    const { deadLetters } = await listDeadLetters(nc, prefix, { limit: 100 });
    const kept = (consumer: string) => deadLetters.filter((d) => d.consumer === consumer).map((d) => [d.subject, d.reason]);
    expect(kept("webhooks-tickets")).toEqual([
      [`${prefix}tickets.ticket.created`, "unparseable"],
      [`${prefix}tickets.ticket.created`, "unknown_version"],
    ]);
    // Rules' callWebhook calls (webhooks) have their own durable on tickets.rule.>.
    expect(kept("webhooks-tickets-rules")).toEqual([
      [`${prefix}tickets.rule.webhook_requested`, "unparseable"],
      [`${prefix}tickets.rule.webhook_requested`, "unknown_version"],
    ]);
    expect(kept("players-deletion")).toEqual([
      [`${prefix}players.deletion.started`, "unparseable"],
      [`${prefix}players.deletion.started`, "unknown_version"],
    ]);
    expect(kept("webhooks-players")).toEqual([
      [`${prefix}players.deletion.started`, "unparseable"],
      [`${prefix}players.deletion.started`, "unknown_version"],
      [`${prefix}players.session.ended`, "unparseable"],
      [`${prefix}players.session.ended`, "unknown_version"],
    ]);
    expect(kept("email-tickets")).toEqual([
      [`${prefix}tickets.ticket.created`, "unparseable"],
      [`${prefix}tickets.ticket.created`, "unknown_version"],
    ]);
    expect(kept("email-content")).toEqual([
      [`${prefix}content.game.created`, "unparseable"],
      [`${prefix}content.game.created`, "unknown_version"],
    ]);
    // Routing (in tickets) reads the tickets' and content's streams.
    expect(kept("tickets-routing")).toEqual([
      [`${prefix}tickets.ticket.created`, "unparseable"],
      [`${prefix}tickets.ticket.created`, "unknown_version"],
    ]);
    expect(kept("tickets-routing-content")).toEqual([
      [`${prefix}content.game.created`, "unparseable"],
      [`${prefix}content.game.created`, "unknown_version"],
    ]);
    // So does the triage's retraining on content's tag and field changes (its tickets consumer
    // reads only tickets.ticket.message_added, which the bad messages are not).
    expect(kept("tickets-triage-content")).toEqual([
      [`${prefix}content.game.created`, "unparseable"],
      [`${prefix}content.game.created`, "unknown_version"],
    ]);
    // Rules (in tickets) read the tickets' stream: its ticket events and its incident events.
    expect(kept("tickets-rules")).toEqual([
      [`${prefix}tickets.ticket.created`, "unparseable"],
      [`${prefix}tickets.ticket.created`, "unknown_version"],
    ]);
    expect(kept("tickets-rules-incidents")).toEqual([
      [`${prefix}tickets.incident.opened`, "unparseable"],
      [`${prefix}tickets.incident.opened`, "unknown_version"],
    ]);
    // So do webhooks (the incident.opened webhook).
    expect(kept("webhooks-tickets-incidents")).toEqual([
      [`${prefix}tickets.incident.opened`, "unparseable"],
      [`${prefix}tickets.incident.opened`, "unknown_version"],
    ]);
    // Outbreak detection (in tickets) reads the new tickets.
    expect(kept("tickets-outbreaks")).toEqual([
      [`${prefix}tickets.ticket.created`, "unparseable"],
      [`${prefix}tickets.ticket.created`, "unknown_version"],
    ]);
    // Content records the audit entries the tickets service hands over (its automation settings).
    expect(kept("content-tickets-audit")).toEqual([
      [`${prefix}tickets.audit.recorded`, "unparseable"],
      [`${prefix}tickets.audit.recorded`, "unknown_version"],
    ]);
    expect(deadLetters).toHaveLength(30);

    // Each process counted what it set aside, the plain subscriptions included.
    const expected: Record<string, string[]> = {
      webhooks: ["webhooks-tickets", "webhooks-tickets-incidents", "webhooks-tickets-rules", "webhooks-players"],
      players: ["players-deletion"],
      gateway: ["gateway-content-changed", "gateway-ticket-events", "gateway-session-changed"],
      tickets: ["tickets-content-changed", "tickets-routing", "tickets-routing-content", "tickets-triage-content", "tickets-rules", "tickets-rules-incidents", "tickets-outbreaks"],
      email: ["email-tickets", "email-content"],
      content: ["content-tickets-audit"],
    };
    for (const [process, consumers] of Object.entries(expected)) {
      await waitUntil(`${process}'s counts`, async () => {
        const counts = await deadLetteredCounts(process);
        // webhooks-players read two bad pairs (players.deletion.started and players.session.ended).
        const pairs = (consumer: string) => (consumer === "webhooks-players" ? 2 : 1);
        return consumers.every((consumer) => counts[`${consumer}/unparseable`] === pairs(consumer) && counts[`${consumer}/unknown_version`] === pairs(consumer));
      }, 10_000);
      const counts = await deadLetteredCounts(process);
      for (const consumer of consumers) expect(counts[`${consumer}/not_envelope`], `${process} ${consumer}`).toBe(0);
    }
    expect(stack.unexpectedExits).toEqual([]);
  });
});
