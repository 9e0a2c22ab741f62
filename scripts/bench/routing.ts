// `pnpm bench routing`: what routing costs per ticket creation (docs/automation.md). The whole
// stack as processes; one company with three games alike but for routing: "plain" (off),
// "unstaffed" (on, but no agent has access: each pass asks content and stops, the cost of the
// decision alone) and "routed" (on, four agents signed in through the gateway and available,
// capacity high enough that every ticket is assigned: the decision plus the assignment, which
// costs what an agent's assignment costs, with its events) and "manual" (off, and the bench
// assigning each ticket to the four agents in turn through POST /tickets/{id}/actions: what the
// assignment costs when nobody automates it). Tickets are created one after another in batches
// (plain, unstaffed, routed, manual; BENCH_ROUTING_ROUNDS rounds, and "plain" once more at the
// end, so that a drift of the machine falls on every game alike), each waited for until its
// events are handled. CPU of every process and of the bench database's Postgres backends per
// ticket, from /proc, less what each process spends idle (measured first, per second, times the
// batch's duration). Target: routing adds at most 1 ms of CPU per ticket creation: the decision
// ("unstaffed" less "plain"), and an assignment beyond the change itself ("routed" less "manual").
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { addedOver, cpuMeter, idleCorrectedMeter, interleavedRounds, meanPerProcess, spreadPerProcess } from "./cpu.ts";
import type { Row, SuiteResult } from "./measure.ts";
import { progress, runDirectory, startStack } from "./stack.ts";

type Game = "plain" | "unstaffed" | "routed" | "manual";

const TICKETS = Number(process.env.BENCH_ROUTING_TICKETS ?? 300);
/** Rounds of the four batches: their means are compared (one round alone moved by about 1 ms per process). */
const ROUNDS = Number(process.env.BENCH_ROUTING_ROUNDS ?? 3);
const PASSWORD = "a quiet harbour at dawn, 2026";
const AGENTS = 4;
const TARGET_MICROS = 1000;
/** The processes routing runs in, or asks: what the target counts. */
const ROUTING_PROCESSES = ["tickets", "content", "postgres"];

export async function routingSuite(): Promise<SuiteResult> {
  const stack = await startStack();
  const suffix = randomUUID().slice(0, 8);
  const emails = Array.from({ length: AGENTS }, (_, i) => `agent${i}-${suffix}@bench.example`);
  const file = path.join(runDirectory(), "routing-tenant.json");
  writeFileSync(
    file,
    JSON.stringify({
      company: { name: `Routing bench ${suffix}` },
      apiKeys: [{ name: "main" }],
      games: [
        { ref: "plain", name: "Plain", slug: `plain-${suffix}`, languages: ["en"], environments: [{ ref: "plain-prod", name: "production" }] },
        { ref: "routed", name: "Routed", slug: `routed-${suffix}`, languages: ["en"], routing: true, environments: [{ ref: "routed-prod", name: "production" }] },
        { ref: "manual", name: "Manual", slug: `manual-${suffix}`, languages: ["en"], environments: [{ ref: "manual-prod", name: "production" }] },
        { ref: "unstaffed", name: "Unstaffed", slug: `unstaffed-${suffix}`, languages: ["en"], routing: true, environments: [{ ref: "unstaffed-prod", name: "production" }] },
      ],
      tags: [{ name: "billing", game: null, isSkill: true }],
      users: emails.map((email, i) => ({ ref: `agent${i}`, name: `Agent ${i}`, email, games: ["plain", "routed", "manual"], capacity: 1000 })),
    }),
  );
  const tenant = await stack.applyTenant(file);
  const key = Object.values(tenant.apiKeys)[0]!;
  const origin = new URL(stack.gateway).origin;
  for (const email of emails) {
    await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    const signedIn = await fetch(`${stack.gateway}/agent-api/sign-in`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1];
    if (!cookie) throw new Error(`sign-in of ${email} answered ${signedIn.status}`);
    const { csrfToken } = (await (await fetch(`${stack.gateway}/agent-api/me`, { headers: { cookie } })).json()) as { csrfToken: string };
    const set = await fetch(`${stack.gateway}/agent-api/me/availability`, {
      method: "PUT", headers: { cookie, origin, "x-csrf-token": csrfToken, "content-type": "application/json" }, body: JSON.stringify({ available: true }),
    });
    if (set.status !== 200) throw new Error(`availability of ${email} answered ${set.status}`);
  }

  const admin = new pg.Client({ connectionString: stack.adminUrl });
  await admin.connect();
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const { rows: agentRows } = await db.query<{ id: string }>("select id from content.users where email = any($1) order by email", [emails]);
  const agentIds = agentRows.map((row) => row.id);
  if (agentIds.length !== AGENTS) throw new Error(`found ${agentIds.length} of the ${AGENTS} agents`);
  const meter = cpuMeter(() => stack.processes.map(({ name, child }) => ({ name, pid: child.pid! })), admin, new URL(stack.databaseUrl).pathname.slice(1));

  async function createTickets(game: Game): Promise<void> {
    for (let i = 0; i < TICKETS; i += 1) {
      const response = await fetch(`${stack.gateway}/tickets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          gameId: tenant.games[game]!.id, message: `Bench ticket ${randomUUID()}`, language: "en", channels: ["email"],
          metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } },
        }),
      });
      if (response.status !== 200) throw new Error(`POST /tickets answered ${response.status}: ${await response.text()}`);
      const { ticketId } = (await response.json()) as { ticketId: string };
      if (game === "manual") {
        // Routing's change, made by the game's backend instead: the agents in turn.
        const assigned = await fetch(`${stack.gateway}/tickets/${ticketId}/actions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ actions: [{ type: "assignTicket", assigneeId: agentIds[i % AGENTS] }] }),
        });
        if (assigned.status !== 200) throw new Error(`POST /tickets/{id}/actions answered ${assigned.status}: ${await assigned.text()}`);
        await assigned.arrayBuffer();
      }
    }
  }

  /** Waits until nothing is left for the services to do: the outboxes empty and, for the routed game, every ticket assigned. */
  async function settled(game: Game): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await db.query<{ waiting: string }>(
        "select count(*) as waiting from tickets.tickets where game_id = $1 and assignee_id is null",
        [tenant.games[game]!.id],
      );
      if (game !== "routed" || Number(rows[0]!.waiting) === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.waiting} tickets of the routed game still unassigned`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The consumers (webhooks, email, the gateway's live feed, routing's) finish what the last
    // events started.
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }

  const cpu = idleCorrectedMeter(meter);
  async function batch(game: Game): Promise<Record<string, number>> {
    progress(`${TICKETS} tickets in the ${game} game`);
    return cpu.perUnit(TICKETS, async () => {
      await createTickets(game);
      await settled(game);
    });
  }

  // A warm-up batch of each, not counted: the first requests compile code and fill caches.
  for (const game of ["plain", "unstaffed", "routed", "manual"] as Game[]) {
    await createTickets(game);
    await settled(game);
  }
  await cpu.measureIdle(10);
  const samples = await interleavedRounds<Game>(["plain", "unstaffed", "routed", "manual"], ROUNDS, batch);
  await db.end();
  await admin.end();
  const off = meanPerProcess(samples.plain);
  const spread = spreadPerProcess(samples.plain);
  const unstaffed = meanPerProcess(samples.unstaffed);
  const routed = meanPerProcess(samples.routed);
  const manual = meanPerProcess(samples.manual);

  const names = [...new Set([...Object.keys(off), ...Object.keys(routed)])].filter((name) => name !== "client").sort();
  const { added, sum } = addedOver(off);
  const decisionMicros = sum(unstaffed, ROUTING_PROCESSES);
  const routingMicros = sum(routed, ROUTING_PROCESSES);
  const allMicros = sum(routed, names);
  const manualMicros = sum(manual, ROUTING_PROCESSES);
  /** What routing's assignment costs beyond the same assignment made through the API. */
  const beyondChangeMicros = routingMicros - manualMicros;
  const rows: Row[] = [];
  const table = [
    `Means of ${ROUNDS} rounds (${ROUNDS + 1} batches with routing off) of ${TICKETS} tickets per batch.`,
    ``,
    `| process | CPU µs/ticket, routing off | its batches' spread | on, nobody eligible | on, assigned | off, assigned through the API | added: decision only | added: decision + assignment | added: the same assignment through the API |`,
    `|---|---|---|---|---|---|---|---|---|`,
    ...names.map((name) => `| ${name} | ${off[name] ?? "-"} | ${spread[name] ?? "-"} | ${unstaffed[name] ?? "-"} | ${routed[name] ?? "-"} | ${manual[name] ?? "-"} | ${added(unstaffed, name)} | ${added(routed, name)} | ${added(manual, name)} |`),
    `| **tickets + content + postgres** | | | | | | **${decisionMicros}** (target ≤ ${TARGET_MICROS}) | **${routingMicros}** | **${manualMicros}** |`,
    `| all processes (with the assignment's events to webhooks, email, the gateway) | | | | | | ${sum(unstaffed, names)} | ${allMicros} | ${sum(manual, names)} |`,
    ``,
    `Routing's assignment beyond the same assignment through the API (tickets + content + postgres): **${beyondChangeMicros} µs** (target ≤ ${TARGET_MICROS}).`,
  ].join("\n");
  const result: SuiteResult = { rows, table, details: { tickets: TICKETS, agents: AGENTS, idlePerSecond: cpu.idlePerSecond, rounds: ROUNDS, perTicket: { plain: off, plainSpread: spread, unstaffed, routed, manual }, batches: samples, decisionMicrosPerTicket: decisionMicros, routingMicrosPerTicket: routingMicros, manualAssignmentMicrosPerTicket: manualMicros, beyondChangeMicrosPerTicket: beyondChangeMicros, allMicrosPerTicket: allMicros, targetMicros: TARGET_MICROS } };
  return result;
}
