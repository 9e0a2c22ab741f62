// NATS as a three-node JetStream cluster (every stream at NATS_STREAM_REPLICAS=3, every client
// given the three URLs) under a steady load of ticket creations and actions, player and agent
// messages on a ticket whose live stream a player has open, and scheduled deletions: the leader
// of the tickets stream is SIGKILLed, started again, then a node that leads nothing of it is
// SIGKILLed and left down (two of three keep the quorum). Afterwards every committed event
// reached every consumer exactly once after de-duplication: the TICKETS_EVENTS stream holds
// each ticket's created event once, the webhook receiver got each ticket.created and each
// player.deleted under one webhook id, the deletion consumer erased each scheduled player once,
// the player's live stream shows each message once, in order; and no durable consumer is left
// with messages not delivered. (A message whose acknowledgement was lost with a consumer leader
// is delivered again after its AckWait, up to a minute; the check does not wait for that, the
// effects above are asserted instead.) The measured bounds (election, catch-up, drain) are
// printed and asserted.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { streamNameFor } from "@support/bus";
import { streamHasPrefix } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkConsistency, consistent } from "../src/consistency.ts";
import { errorBodyProblem, runLoad, type LoadResult, type LoadTarget } from "../src/load.ts";
import { FaultStack, progress, waitUntil } from "../src/stack.ts";
import { tenant } from "../src/tenant.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The bounds this scenario holds the cluster to (measured values are printed). */
const ELECTION_BOUND_MS = 15_000;
const CATCH_UP_BOUND_MS = 20_000;
/** Every delivery after the load (hundreds of webhooks among them) on a machine other tests share. */
const DRAIN_BOUND_MS = 45_000;
const DELETIONS = 3;

interface Hook {
  webhookId: string;
  type: string;
  /** Every UUID in its data: the ticket or player it is about. */
  ids: string[];
}

/**
 * Every message of a service's stream whose subject ends with `type`: each UUID in it -> count.
 * Read again when the read fails: creating the reading consumer needs the cluster's metadata
 * leader, which the kill of a node may have sent into an election.
 */
async function streamCounts(stack: FaultStack, service: string, type: string): Promise<Map<string, number>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readStreamCounts(stack, service, type);
    } catch (error) {
      if (attempt === 5) throw error;
      progress(`reading ${service}'s stream failed (${String(error)}); again`);
    }
  }
}

async function readStreamCounts(stack: FaultStack, service: string, type: string): Promise<Map<string, number>> {
  const nc = await connect({ servers: stack.natsUrl.split(","), timeout: 5000 });
  try {
    const consumer = await jetstream(nc).consumers.get(streamNameFor(stack.natsPrefix, service));
    const counts = new Map<string, number>();
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
      let got = 0;
      for await (const message of batch) {
        got++;
        if (!message.subject.endsWith(type)) continue;
        const data = JSON.stringify(message.json<{ data: unknown }>().data);
        for (const id of new Set(data.match(UUID))) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      if (got === 0) break;
    }
    return counts;
  } finally {
    await nc.close();
  }
}

/**
 * The durable consumers of the stack's streams: those with messages not yet delivered (behind),
 * and those with delivered messages not yet acknowledged (each is delivered again after the
 * consumer's AckWait: an acknowledgement lost with a consumer leader is not a stuck consumer).
 */
async function consumerBacklog(stack: FaultStack): Promise<{ behind: string[]; unacknowledged: string[] }> {
  const nc = await connect({ servers: stack.natsUrl.split(","), timeout: 5000 });
  try {
    const jsm = await jetstreamManager(nc);
    const behind = new Set<string>();
    const unacknowledged = new Set<string>();
    const names: string[] = [];
    for await (const stream of jsm.streams.list()) if (streamHasPrefix(stream.config.name, stack.natsPrefix)) names.push(stream.config.name);
    for (const stream of names) {
      for await (const consumer of jsm.consumers.list(stream)) {
        // Ordered consumers (the gateway's live feed, a reader of this test) are not durable.
        if (!consumer.config.durable_name) continue;
        if (consumer.num_pending > 0) behind.add(`${stream}/${consumer.name}: ${consumer.num_pending} not delivered`);
        if (consumer.num_ack_pending > 0) unacknowledged.add(`${stream}/${consumer.name}: ${consumer.num_ack_pending} (AckWait ${(consumer.config.ack_wait ?? 0) / 1e9} s)`);
      }
    }
    return { behind: [...behind], unacknowledged: [...unacknowledged] };
  } finally {
    await nc.close();
  }
}

describe("a three-node NATS JetStream cluster: the tickets stream's leader killed and restarted, then a follower killed", () => {
  let stack: FaultStack;
  let receiver: http.Server;
  let target: LoadTarget;
  let erasuresKey: string;
  let sessionCode: string;
  let chatTicketId: string;
  const hooks: Hook[] = [];
  const frames: { id?: string; event?: string; data?: string }[] = [];
  const streamAbort = new AbortController();
  let streamReading: Promise<void> = Promise.resolve();
  /** Players of the second company whose deletion is scheduled during the faults. */
  const victims: string[] = [];
  /** Answers outside the contract of the chat and deletion requests. */
  const violations: string[] = [];
  /** Messages (player or agent) answered 2xx on the chat ticket. */
  const sent: string[] = [];
  const measured: Record<string, number> = {};
  let load: LoadResult;

  async function call(pathname: string, init: { key?: string; session?: string; json?: unknown; method?: string }): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(stack.gateway + pathname, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: {
        authorization: init.session ? `Session ${init.session}` : `Bearer ${init.key ?? target.key}`,
        ...(init.json === undefined ? {} : { "content-type": "application/json" }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    if (response.status >= 300) {
      const problem = errorBodyProblem(response.status, text);
      if (problem) violations.push(`${pathname}: ${problem}: ${text.slice(0, 200)}`);
    }
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        try {
          const parsed = JSON.parse(body) as { type: string; data: unknown };
          hooks.push({ webhookId: String(request.headers["webhook-id"]), type: parsed.type, ids: JSON.stringify(parsed.data).match(UUID) ?? [] });
        } catch {
          // not a delivery
        }
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    stack = await FaultStack.start(
      {
        // The live stream must follow from the tickets events (and the reconnects), not a timer.
        PLAYER_STREAM_RESYNC_MS: "600000",
        PLAYER_API_RATE_LIMIT_PER_SESSION: "0",
        PLAYER_API_RATE_LIMIT_PER_ADDRESS: "0",
        PUBLIC_RATE_LIMIT_PER_ADDRESS: "0",
      },
      { natsCluster: 3, env: { PLAYER_DELETION_DELAY_SECONDS: "1" } },
    );
    const main = await stack.applyTenant({ ...tenant, webhooks: [{ url: receiverUrl, events: ["ticket.created"] }] });
    target = { gateway: stack.gateway, key: main.apiKeys.load!, companyId: main.companyId, gameId: main.games.galaxy!.id };
    // The erased players belong to a company of their own: their erased tickets leave gaps in
    // its running ids, while the load's company must stay gapless.
    const erasures = await stack.applyTenant({
      ...tenant,
      company: { name: "Fault Erasures", primaryLanguage: "en" },
      games: [{ ...tenant.games[0]!, slug: "galaxy-erasures" }],
      webhooks: [{ url: receiverUrl, events: ["player.deleted"] }],
    });
    erasuresKey = erasures.apiKeys.load!;
    for (let n = 0; n < DELETIONS; n++) {
      const created = await call("/tickets", {
        key: erasuresKey,
        json: { gameId: erasures.games.galaxy!.id, message: `Erase me ${n}: my account should go`, language: "en", channels: ["email"], metadata: { player: { id: `erased-${n}`, email: `erased-${n}@example.com` } } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const [row] = await stack.query<{ id: string }>("select service_player_id as id from tickets.tickets where id = $1", [created.body.ticketId]);
      victims.push(row!.id);
    }

    // A player with the ticket's live stream open, as the support page keeps it.
    const token = main.games.galaxy!.environments["galaxy-production"]!.token;
    const session = await call("/support/sessions", { json: { token, player: { id: "stream-player" } } });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    sessionCode = session.body.sessionCode as string;
    const opened = await call("/player-api/tickets", { session: sessionCode, json: { message: "Chat 0: the portal does not open" } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    chatTicketId = opened.body.ticketId as string;
    sent.push("Chat 0: the portal does not open");
    const response = await fetch(`${stack.gateway}/player-api/tickets/${chatTicketId}/stream`, { headers: { authorization: `Session ${sessionCode}` }, signal: streamAbort.signal });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    streamReading = (async () => {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const frame: (typeof frames)[number] = {};
            for (const line of buffer.slice(0, end).split("\n")) {
              const colon = line.indexOf(":");
              if (colon > 0) frame[line.slice(0, colon) as "id" | "event" | "data"] = line.slice(colon + 1).trimStart();
            }
            buffer = buffer.slice(end + 2);
            frames.push(frame);
          }
        }
      } catch {
        // aborted at the end
      }
    })();
    progress("cluster stack ready: webhook receiver, a live stream, players to erase");

    let faultsOver = false;
    const faults = (async () => {
      const names = stack.natsNodeNames;
      await sleep(1500);
      const { leader } = await stack.natsStreamLeader("tickets");
      if (!leader) throw new Error("the tickets stream has no leader");
      let began = performance.now();
      await stack.killNatsNode(leader);
      progress(`tickets stream leader ${leader} SIGKILLed`);
      await waitUntil("a new leader of the tickets stream", async () => ((await stack.natsStreamLeader("tickets")).leader ?? leader) !== leader, ELECTION_BOUND_MS * 2, 100);
      measured.electionMs = Math.round(performance.now() - began);
      progress(`new tickets stream leader after ${measured.electionMs} ms`);
      await schedule(0);
      await sleep(1500);
      began = performance.now();
      await stack.startNatsNode(leader);
      await waitUntil(`${leader} current again`, async () => (await stack.natsStreamLeader("tickets")).current.includes(leader), CATCH_UP_BOUND_MS * 2, 100);
      measured.catchUpMs = Math.round(performance.now() - began);
      progress(`${leader} started again, current after ${measured.catchUpMs} ms`);
      await schedule(1);
      await sleep(1000);
      const now = await stack.natsStreamLeader("tickets");
      // The third node: neither the stream's leader nor the node that just caught up.
      const follower = names.find((name) => name !== now.leader && name !== leader) ?? names.find((name) => name !== now.leader)!;
      await stack.killNatsNode(follower);
      progress(`follower ${follower} SIGKILLed (left down)`);
      await schedule(2);
      await sleep(2000);
    })().finally(() => (faultsOver = true));

    async function schedule(n: number): Promise<void> {
      // A retry after a 503 is what a client does; the schedule is idempotent.
      for (let attempt = 0; attempt < 10; attempt++) {
        const answer = await call("/player/schedule-deletion", { key: erasuresKey, json: { servicePlayerId: victims[n] } });
        if (answer.status === 200) return;
        await sleep(500);
      }
      violations.push(`the deletion of ${victims[n]} was never scheduled`);
    }

    const chat = (async () => {
      for (let n = 1; !faultsOver; n++) {
        const message = `Chat ${n}: still stuck at level ${n}`;
        const answer =
          n % 2 === 0
            ? await call(`/player-api/tickets/${chatTicketId}/messages`, { session: sessionCode, json: { message } })
            : await call(`/tickets/${chatTicketId}/actions`, { json: { actions: [{ type: "sendMessage", message }] } });
        if (answer.status === 200) sent.push(message);
        await sleep(250);
      }
    })();

    load = await runLoad(target, { clients: 4, minCreates: 100, until: faults, actionEvery: 2, pauseMs: 25 });
    await faults;
    await chat;
    const began = performance.now();
    let lastShown = began;
    await waitUntil(
      "the outboxes drained and every durable consumer caught up",
      async () => {
        const [{ n }] = (await stack.query<{ n: number }>("select (select count(*) from tickets.outbox)::int + (select count(*) from players.outbox)::int as n")) as [{ n: number }];
        if (n > 0) return false;
        const { behind } = await consumerBacklog(stack);
        if (behind.length > 0 && performance.now() - lastShown > 3000) {
          lastShown = performance.now();
          progress(`consumers behind: ${behind.join("; ")}`);
        }
        return behind.length === 0;
      },
      DRAIN_BOUND_MS * 2,
    ).catch(() => undefined);
    measured.drainMs = Math.round(performance.now() - began);
    progress(`after the faults: outboxes drained and consumers caught up in ${measured.drainMs} ms; measured ${JSON.stringify(measured)}`);
    const { unacknowledged } = await consumerBacklog(stack);
    if (unacknowledged.length > 0) progress(`delivered, awaiting an acknowledgement or redelivery: ${unacknowledged.join("; ")}`);
  }, 600_000);

  afterAll(async () => {
    streamAbort.abort();
    await streamReading;
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("keeps every process of ours running (only the NATS nodes the test killed exited)", () => {
    expect(stack.unexpectedExits).toEqual([]);
  });

  it("answers every request with a 2xx or a 503/504 error body, never a closed connection", () => {
    expect(load.violations).toEqual([]);
    expect(load.closed).toEqual([]);
    expect(load.created.length).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });

  it("elects a new leader, catches the restarted node up and drains within the bounds", () => {
    expect(measured.electionMs).toBeLessThan(ELECTION_BOUND_MS);
    expect(measured.catchUpMs).toBeLessThan(CATCH_UP_BOUND_MS);
    expect(measured.drainMs).toBeLessThan(DRAIN_BOUND_MS);
  });

  it("leaves no durable consumer behind: each was delivered every message of its stream", async () => {
    // Events keep coming after the drain (the scheduled erasures fall due and publish theirs):
    // a consumer is behind when what its stream holds stays undelivered, not for the instant
    // between a publish and its delivery.
    await expect.poll(async () => (await consumerBacklog(stack)).behind, { timeout: 15_000, interval: 500 }).toEqual([]);
  });

  it("keeps every committed ticket whole, gapless and on the stream exactly once", async () => {
    const report = await checkConsistency(stack, load.created, 30_000, target.companyId);
    progress(`consistency: ${report.tickets} tickets`);
    expect(report).toEqual(consistent(report.tickets));
  });

  it("delivers each committed ticket's ticket.created webhook under exactly one webhook id", async () => {
    const committed = (await stack.query<{ id: string }>("select id from tickets.tickets where company_id = $1", [target.companyId])).map((row) => row.id);
    const idsOf = () => {
      const byTicket = new Map<string, Set<string>>();
      for (const hook of hooks) {
        if (hook.type !== "ticket.created") continue;
        for (const id of hook.ids) byTicket.set(id, (byTicket.get(id) ?? new Set()).add(hook.webhookId));
      }
      return byTicket;
    };
    await waitUntil("every ticket.created delivered", async () => committed.every((id) => idsOf().has(id)), 30_000);
    const byTicket = idsOf();
    const deliveries = hooks.filter((hook) => hook.type === "ticket.created").length;
    progress(`ticket.created: ${committed.length} tickets, ${deliveries} deliveries (${deliveries - committed.length} repeats under the same webhook id)`);
    expect(committed.filter((id) => byTicket.get(id)?.size !== 1)).toEqual([]);
  });

  it("erases each scheduled player once: one players.player.deleted event, one player.deleted webhook id", async () => {
    await waitUntil("every scheduled player erased", async () => {
      const rows = await stack.query<{ n: number }>("select count(*)::int as n from players.players where id = any($1)", [victims]);
      return rows[0]!.n === 0;
    }, 30_000);
    await waitUntil("every player.deleted delivered", async () => victims.every((id) => hooks.some((hook) => hook.type === "player.deleted" && hook.ids.includes(id))), 30_000);
    const events = await streamCounts(stack, "players", "players.player.deleted");
    expect(victims.map((id) => events.get(id))).toEqual(victims.map(() => 1));
    const webhookIds = victims.map((id) => new Set(hooks.filter((hook) => hook.type === "player.deleted" && hook.ids.includes(id)).map((hook) => hook.webhookId)).size);
    expect(webhookIds).toEqual(victims.map(() => 1));
  });

  it("shows the player's live stream every message once, in order, as the ticket holds them", async () => {
    const streamed = () => frames.filter((frame) => frame.event === "ticket-event").map((frame) => JSON.parse(frame.data!) as { id: string; message?: string });
    await waitUntil("every message on the live stream", async () => sent.every((message) => streamed().some((event) => event.message === message)), 20_000);
    const stored = (await call(`/player-api/tickets/${chatTicketId}/events`, { session: sessionCode })).body.events as { id: string }[];
    progress(`live stream: ${streamed().length} events, ${sent.length} messages answered 200`);
    expect(sent.length).toBeGreaterThan(10);
    expect(streamed().map((event) => event.id)).toEqual(stored.map((event) => event.id));
  });
});
