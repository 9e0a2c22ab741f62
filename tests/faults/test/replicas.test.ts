// Replicas as a cluster runs them, with real processes on a private stack: two gateways, two
// tickets replicas on two loopback addresses (127.0.0.2 and .3, one port) found through a
// hosts file the clients re-read at every lookup, as the addresses of a headless Service, and
// two players replicas on two ports given as a comma-separated list. It checks that calls
// spread over the tickets replicas, that a third one added at run time gets calls after the
// next lookup, and that work every replica may do is done once: each created ticket published
// once (both replicas relay their outbox), each due ticket auto-closed once (both sweep), and
// a scheduled deletion erased once (both players replicas consume the schedule).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { streamNameFor } from "@support/bus";
import { freePort } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkConsistency, consistent } from "../src/consistency.ts";
import type { CreatedTicket } from "../src/load.ts";
import { FaultStack, progress, waitUntil } from "../src/stack.ts";
import { tenant } from "../src/tenant.ts";

const RESOLVE_INTERVAL_MS = 2000;
/** Per test: a thousand requests through real processes on a shared, busy machine. */
const TEST_TIMEOUT_MS = 300_000;
const TICKETS_HOST = "tickets.replicas";
const TICKETS_ADDRESSES = ["127.0.0.2", "127.0.0.3", "127.0.0.4"] as const;

/** Every message of a stream whose subject ends with `type` and whose JSON mentions `id`: id -> count. */
async function eventCounts(stack: FaultStack, stream: string, type: string, ids: string[]): Promise<Map<string, number>> {
  const nc = await connect({ servers: stack.natsUrl, timeout: 5000 });
  try {
    const consumer = await jetstream(nc).consumers.get(streamNameFor(stack.natsPrefix, stream));
    const counts = new Map(ids.map((id) => [id, 0]));
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
      let got = 0;
      for await (const message of batch) {
        got++;
        if (!message.subject.endsWith(type)) continue;
        const text = message.string();
        for (const id of ids) if (text.includes(id)) counts.set(id, counts.get(id)! + 1);
      }
      if (got === 0) break;
    }
    return counts;
  } finally {
    await nc.close();
  }
}

describe("replicas: balancing, and work done once", () => {
  let stack: FaultStack;
  let dir: string;
  let hostsFile: string;
  let ticketsPort: number;
  let gateways: string[];
  let key: string;
  let gameId: string;
  /** Tickets calls answered per tickets replica (its debug line per call). */
  const served: Record<string, number> = {};
  const created: CreatedTicket[] = [];

  const writeHosts = (addresses: readonly string[]) => writeFileSync(hostsFile, addresses.map((address) => `${address} ${TICKETS_HOST}\n`).join(""));

  function startTickets(address: string): void {
    served[address] = 0;
    // Each call is counted from its debug line as it is written: lines are not held for a batch.
    stack.startProcess("tickets", { HOST: address, PORT: String(ticketsPort), LOG_LEVEL: "debug", LOG_FLUSH_INTERVAL_MS: "0" }, `tickets-${address}`, (line) => {
      // grpc.health.v1 Checks are the gateways' reports, not calls of a route.
      if (line.includes('"msg":"rpc call"') && !line.includes('"procedure":"Check"')) served[address]! += 1;
    });
  }

  async function request(gateway: string, pathname: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: unknown }> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${key}`);
    if (init.json !== undefined) headers.set("content-type", "application/json");
    const response = await fetch(gateway + pathname, {
      ...init,
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  /** `count` GET /tickets/{id}/events (one tickets call each) spread over both gateways, 8 at a time; all must answer 200. */
  async function reads(count: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const ticket = created[i % created.length]!;
        const answer = await request(gateways[i % gateways.length]!, `/tickets/${ticket.ticketId}/events`);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "replicas-"));
    hostsFile = path.join(dir, "hosts");
    writeHosts(TICKETS_ADDRESSES.slice(0, 2));
    ticketsPort = await freePort();
    const playersPorts = [await freePort(), await freePort()];
    const playersUrl = playersPorts.map((port) => `http://127.0.0.1:${port}`).join(",");
    stack = await FaultStack.start(
      {},
      {
        env: {
          TICKETS_URL: `http://${TICKETS_HOST}:${ticketsPort}`,
          PLAYERS_URL: playersUrl,
          RPC_HOSTS_FILE: hostsFile,
          RPC_RESOLVE_INTERVAL_MS: String(RESOLVE_INTERVAL_MS),
          AUTO_CLOSE_INTERVAL_MS: "300",
          PLAYER_DELETION_DELAY_SECONDS: "2",
        },
        start: ["content", "media", "webhooks", "email"],
      },
    );
    playersPorts.forEach((port, i) => stack.startProcess("players", { PORT: String(port) }, `players-${i + 1}`));
    for (const address of TICKETS_ADDRESSES.slice(0, 2)) startTickets(address);
    const secondGatewayPort = await freePort();
    stack.startProcess("gateway");
    stack.startProcess("gateway", { PORT: String(secondGatewayPort) }, "gateway-2");
    gateways = [stack.gateway, `http://127.0.0.1:${secondGatewayPort}`];
    for (const gateway of gateways) await stack.waitUntilReady(90_000, gateway);
    progress("replica stack ready: 2 gateways, 2 tickets, 2 players");
    const applied = await stack.applyTenant(tenant);
    key = applied.apiKeys.load!;
    gameId = applied.games.galaxy!.id;
    // Eight processes start on a machine that may be busy: bounded generously, not timed.
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, TEST_TIMEOUT_MS);

  it("creates tickets through both gateways, each published once although both tickets replicas relay their outbox", async () => {
    for (let n = 0; n < 40; n += 1) {
      const answer = await request(gateways[n % 2]!, "/tickets", {
        method: "POST",
        json: {
          gameId,
          message: `Replica test message ${n}: the item ${n * 7919} did not arrive`,
          language: "en",
          channels: ["email"],
          // A player of its own: a similar open ticket of the same player would be refused.
          metadata: { player: { id: `replica-player-${n}`, email: `replica${n}@example.com` } },
        },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { ticketId, runningId } = answer.body as { ticketId: string; runningId: number };
      created.push({ ticketId, runningId: Number(runningId), companyId: "" });
    }
    const report = await checkConsistency(stack, created);
    expect(report).toEqual(consistent(40));
    expect(stack.unexpectedExits).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("spreads 1,000 calls over both tickets replicas, each serving at least 30 %", async () => {
    for (const address of Object.keys(served)) served[address] = 0;
    await reads(1000);
    // A call is counted from its log line, which the replica writes as it answers: the last
    // lines may reach this process just after their answers did.
    const counted = () => served["127.0.0.2"]! + served["127.0.0.3"]!;
    await waitUntil("every call counted", async () => counted() >= 1000, 10_000, 50);
    progress(`calls per tickets replica: ${JSON.stringify(served)}`);
    const total = counted();
    expect(total).toBeGreaterThanOrEqual(1000);
    expect(served["127.0.0.2"]! / total).toBeGreaterThanOrEqual(0.3);
    expect(served["127.0.0.3"]! / total).toBeGreaterThanOrEqual(0.3);
  }, TEST_TIMEOUT_MS);

  it("sends calls to a third tickets replica added at run time, after the next lookup", async () => {
    startTickets("127.0.0.4");
    // Listening first (its own /healthz), then published in the hosts file, as a Pod becomes ready.
    await waitUntil("the third tickets replica listens", async () => served["127.0.0.4"] !== undefined && (await tcpOpen("127.0.0.4", ticketsPort)), 90_000);
    writeHosts(TICKETS_ADDRESSES);
    const published = performance.now();
    await waitUntil("calls reach the third replica", async () => {
      await reads(40);
      return served["127.0.0.4"]! > 0;
    }, 60_000, 0);
    progress(`third replica got its first call ${Math.round(performance.now() - published)} ms after it was published (re-resolve interval ${RESOLVE_INTERVAL_MS} ms)`);
    for (const address of Object.keys(served)) served[address] = 0;
    await reads(300);
    progress(`calls per tickets replica with three: ${JSON.stringify(served)}`);
    for (const address of TICKETS_ADDRESSES) expect(served[address]!).toBeGreaterThan(0);
  }, TEST_TIMEOUT_MS);

  it("auto-closes each due waiting ticket once, with two or three replicas sweeping", async () => {
    const waiting = created.slice(0, 10).map((t) => t.ticketId);
    for (const ticketId of waiting) {
      const answer = await request(gateways[0]!, `/tickets/${ticketId}/actions`, { method: "POST", json: { actions: [{ type: "setStatus", status: "waiting" }] } });
      expect(answer.status).toBe(200);
    }
    // Due now: waiting (and silent) for longer than any company's auto-close period.
    await stack.query(
      "update tickets.tickets set waiting_since = now() - interval '100 days', last_player_message_at = now() - interval '100 days' where id = any($1)",
      [waiting],
    );
    await waitUntil("every due ticket to be closed", async () => {
      const rows = await stack.query<{ n: number }>("select count(*)::int as n from tickets.tickets where id = any($1) and status = 'closed'", [waiting]);
      return rows[0]!.n === waiting.length;
    }, 60_000);
    const ends = await stack.query<{ ticket_id: string; n: number }>(
      "select ticket_id, count(*)::int as n from tickets.ticket_events where ticket_id = any($1) and type = 'END' group by ticket_id",
      [waiting],
    );
    expect(ends.map((row) => row.n)).toEqual(waiting.map(() => 1));
    await waitUntil("the outbox to drain", async () => (await stack.query<{ n: number }>("select count(*)::int as n from tickets.outbox"))[0]!.n === 0, 30_000);
    const closedEvents = await eventCounts(stack, "tickets", "tickets.ticket.closed", waiting);
    expect([...closedEvents.values()]).toEqual(waiting.map(() => 1));
  }, TEST_TIMEOUT_MS);

  it("runs a scheduled deletion once, with two players replicas consuming the schedule", async () => {
    const [victim] = await stack.query<{ servicePlayerId: string }>('select service_player_id as "servicePlayerId" from tickets.tickets where id = $1', [created[19]!.ticketId]);
    if (!victim) throw new Error("the ticket is missing");
    const theirs = (await stack.query<{ id: string }>("select id from tickets.tickets where service_player_id = $1", [victim.servicePlayerId])).map((r) => r.id);
    expect(theirs.length).toBeGreaterThan(0);
    const scheduled = await request(gateways[1]!, "/player/schedule-deletion", { method: "POST", json: { servicePlayerId: victim.servicePlayerId } });
    expect(scheduled.status).toBe(200);
    await waitUntil("the erasure to complete", async () => {
      const rows = await stack.query<{ n: number }>("select count(*)::int as n from players.players where id = $1", [victim.servicePlayerId]);
      return rows[0]!.n === 0;
    }, 90_000);
    expect(await stack.query("select id from tickets.tickets where service_player_id = $1", [victim.servicePlayerId])).toEqual([]);
    await waitUntil("the outboxes to drain", async () => {
      const rows = await stack.query<{ n: number }>("select (select count(*) from tickets.outbox)::int + (select count(*) from players.outbox)::int as n");
      return rows[0]!.n === 0;
    }, 30_000);
    const deleted = await eventCounts(stack, "players", "players.player.deleted", [victim.servicePlayerId]);
    expect(deleted.get(victim.servicePlayerId)).toBe(1);
    const ticketsDeleted = await eventCounts(stack, "tickets", "tickets.ticket.deleted", theirs);
    expect([...ticketsDeleted.values()]).toEqual(theirs.map(() => 1));
    expect(stack.unexpectedExits).toEqual([]);
  }, TEST_TIMEOUT_MS);
});

async function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
