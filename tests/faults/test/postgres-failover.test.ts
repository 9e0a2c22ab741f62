// Postgres failing over to its standby: a primary and a streaming standby (initdb, then
// pg_basebackup; synchronous replication), every service given both in DATABASE_URL with
// target_session_attrs=read-write (libs/db finds the one that takes writes). Under a load of
// creations and actions, with three waiting tickets due for auto-close and a player's deletion
// due just after the kill, the primary is stopped as a crash stops it (`pg_ctl stop -m
// immediate`, every connection cut) and the test promotes the standby a second later, as an
// operator or CloudNativePG would. It asserts: no process of ours exits; during the switch
// only 2xx or 503/504 with the error body (503 with Retry-After); the stack takes writes again
// within a bound (printed); the pools and the outbox relays' LISTEN connections are on the new
// primary; every ticket a client was told about is there, gapless, each published once (the
// relays resumed); each due ticket auto-closed once and the deletion run once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { streamNameFor } from "@support/bus";
import { checkConsistency, consistent } from "../src/consistency.ts";
import { runLoad, type LoadResult, type LoadTarget } from "../src/load.ts";
import { FaultStack, progress, STANDBY_NAME, waitUntil } from "../src/stack.ts";
import { tenant } from "../src/tenant.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** From the kill until a creation is answered 200 again (the promotion comes 1 s after the kill). */
const RECOVERY_BOUND_MS = 20_000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Messages of a service's stream whose subject ends with `type`: each UUID in their data -> count. */
async function streamCounts(stack: FaultStack, service: string, type: string): Promise<Map<string, number>> {
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
        for (const id of new Set(JSON.stringify(message.json<{ data: unknown }>().data).match(UUID))) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      if (got === 0) break;
    }
    return counts;
  } finally {
    await nc.close();
  }
}

describe("Postgres failing over to its synchronous standby under load", () => {
  let stack: FaultStack;
  let target: LoadTarget;
  let load: LoadResult;
  let syncState: string | undefined;
  let recoveryMs: number;
  /** Waiting tickets due for auto-close one second after the kill. */
  const dueTickets: string[] = [];
  let victim: string;
  const probes: { ticketId: string; runningId: number; companyId: string }[] = [];

  async function call(pathname: string, json: unknown, key = target.key): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(stack.gateway + pathname, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(json),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  const ticket = (n: string, key = target.key, gameId = target.gameId) =>
    call("/tickets", { gameId, message: `Failover ${n}: the gems are gone`, language: "en", channels: ["email"], metadata: { player: { id: `failover-${n}`, email: `failover-${n}@example.com` } } }, key);

  beforeAll(async () => {
    stack = await FaultStack.start({}, { standby: "sync", env: { AUTO_CLOSE_INTERVAL_MS: "1000", PLAYER_DELETION_DELAY_SECONDS: "2" } });
    const main = await stack.applyTenant(tenant);
    target = { gateway: stack.gateway, key: main.apiKeys.load!, companyId: main.companyId, gameId: main.games.galaxy!.id };
    // The erased player belongs to a company of its own: its erased ticket would leave a gap in
    // the running ids of the load's company.
    const erasures = await stack.applyTenant({ ...tenant, company: { name: "Failover Erasures", primaryLanguage: "en" }, games: [{ ...tenant.games[0]!, slug: "galaxy-erasures" }] });
    const doomed = await ticket("erased", erasures.apiKeys.load!, erasures.games.galaxy!.id);
    expect(doomed.status, JSON.stringify(doomed.body)).toBe(200);
    victim = (await stack.query<{ id: string }>("select service_player_id as id from tickets.tickets where id = $1", [doomed.body.ticketId]))[0]!.id;
    for (let n = 0; n < 3; n++) {
      const created = await ticket(`waiting-${n}`);
      expect(created.status).toBe(200);
      const ticketId = created.body.ticketId as string;
      probes.push({ ticketId, runningId: Number(created.body.runningId), companyId: target.companyId });
      expect((await call(`/tickets/${ticketId}/actions`, { actions: [{ type: "setStatus", status: "waiting" }] })).status).toBe(200);
      dueTickets.push(ticketId);
    }
    syncState = (await stack.query<{ sync_state: string }>("select sync_state from pg_stat_replication where application_name = $1", [STANDBY_NAME]))[0]?.sync_state;
    progress(`primary and standby (${syncState}) ready`);

    const faults = (async () => {
      await sleep(1500);
      // Due one second from now (the company's 168 hours of silence), and a deletion due in two.
      await stack.query(
        "update tickets.tickets set waiting_since = now() - interval '168 hours' + interval '1 second', last_player_message_at = null where id = any($1)",
        [dueTickets],
      );
      const scheduled = await call("/player/schedule-deletion", { servicePlayerId: victim }, erasures.apiKeys.load!);
      expect(scheduled.status).toBe(200);
      const killed = performance.now();
      await stack.killPrimary();
      progress("primary stopped (immediate)");
      await sleep(1000);
      await stack.promoteStandby();
      progress(`standby promoted ${Math.round(performance.now() - killed)} ms after the kill`);
      await waitUntil("a creation answered 200 on the new primary", async () => {
        const created = await ticket(`probe-${probes.length}`);
        if (created.status === 200) probes.push({ ticketId: created.body.ticketId as string, runningId: Number(created.body.runningId), companyId: target.companyId });
        return created.status === 200;
      }, RECOVERY_BOUND_MS * 2, 100);
      recoveryMs = Math.round(performance.now() - killed);
      progress(`writes answered again ${recoveryMs} ms after the kill`);
      await sleep(2000);
    })();
    load = await runLoad(target, { clients: 4, minCreates: 60, until: faults, actionEvery: 2 });
    await faults;
  }, 600_000);
  afterAll(() => stack?.stop());

  it("replicates synchronously before the kill", () => {
    expect(syncState).toBe("sync");
  });

  it("keeps every process of ours running", () => {
    expect(stack.unexpectedExits).toEqual([]);
  });

  it("answers 2xx or 503/504 with the error body (503 with Retry-After) during the switch, never a closed connection", () => {
    expect(load.violations).toEqual([]);
    expect(load.closed).toEqual([]);
    expect(load.statuses["503"] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(load.statuses).filter((status) => status !== "200" && status !== "503" && status !== "504")).toEqual([]);
  });

  it("takes writes again within the bound", () => {
    expect(recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it("has the pools and the outbox relays' LISTEN connections on the new primary", async () => {
    await stack.waitUntilReady(30_000);
    const names = (await stack.query<{ name: string }>("select distinct application_name as name from pg_stat_activity where application_name <> ''")).map((row) => row.name);
    for (const name of ["tickets", "players", "outbox-relay-tickets", "outbox-relay-players"]) expect(names).toContain(name);
  });

  it("keeps every ticket committed before and after the kill, gapless, each published once", async () => {
    const report = await checkConsistency(stack, [...load.created, ...probes], 30_000, target.companyId);
    progress(`consistency: ${report.tickets} tickets`);
    expect(report).toEqual(consistent(report.tickets));
  });

  it("auto-closes each ticket due during the switch once", async () => {
    await waitUntil("the due tickets closed", async () => {
      const rows = await stack.query<{ n: number }>("select count(*)::int as n from tickets.tickets where id = any($1) and status = 'closed'", [dueTickets]);
      return rows[0]!.n === dueTickets.length;
    }, 30_000);
    const ends = await stack.query<{ n: number }>("select count(*)::int as n from tickets.ticket_events where ticket_id = any($1) and type = 'END' group by ticket_id", [dueTickets]);
    expect(ends.map((row) => row.n)).toEqual(dueTickets.map(() => 1));
    const closed = await streamCounts(stack, "tickets", "tickets.ticket.closed");
    expect(dueTickets.map((id) => closed.get(id))).toEqual(dueTickets.map(() => 1));
  });

  it("runs the deletion due during the switch once", async () => {
    await waitUntil("the player erased", async () => (await stack.query("select 1 from players.players where id = $1", [victim])).length === 0, 30_000);
    const deleted = await streamCounts(stack, "players", "players.player.deleted");
    expect(deleted.get(victim)).toBe(1);
  });
});
