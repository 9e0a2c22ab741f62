// `pnpm bench` (suite `full`, the default): the stack as it is deployed (LOG_LEVEL=info, JSON
// logs into files of the run directory, metrics on and scraped at the end, tracing off) under the
// requests that matter in production, each measured twice:
//  - saturating throughput: closed loop, autocannon, CONNECTIONS connections, BENCH_DURATION_S;
//  - latency at a fixed arrival rate of half that throughput (open loop, open-loop.ts).
// Bare Koa hello runs through the same harness with the same connections in the same run: every
// target is a ratio to it, so the verdict means the same on any machine. CPU µs per request of
// every process (cpu.ts) come from the closed-loop run.
import path from "node:path";
import pg from "pg";
import { cpuMeter, type CpuSnapshot } from "./cpu.ts";
import { durationSeconds, measure, type SuiteResult } from "./measure.ts";
import { CLIENT_LAG_LIMIT_MS, openLoop, type OpenLoopRequest } from "./open-loop.ts";
import { isCleaningUp, progress, root, start, startStack, freePort, waitForHttp, type Stack } from "./stack.ts";
import { longestStall, stallWindow } from "./stalls.ts";
import { seedTickets } from "./tickets-seed.ts";
import { listUrl, scan } from "./tickets.ts";
import { evaluateTargets, P99_LIMIT_MS, type CaseResult, type Kind, type Target } from "./targets.ts";

const here = import.meta.dirname;
const CONNECTIONS = 32;
/** Tickets of the listed company (bulk-loaded): enough for full pages and a scan of several pages. */
const LIST_TICKETS = Number(process.env.BENCH_LIST_TICKETS ?? 20_000);
/** Tickets the actions rotate over, and player sessions (each with one chat ticket). */
const POOL = 64;
const CURSOR_SECRET = "bench-cursor-secret";
/** Seconds of the open loop before the measured ones (connections opening); not counted. */
const OPEN_LOOP_WARMUP_S = 1;

interface Case {
  name: string;
  /** Group for the targets. */
  kind: Kind;
  origin: string;
  method: "GET" | "POST";
  /** The i-th request. */
  request: (i: number) => OpenLoopRequest;
  /** Units of work per request (tickets of a list page), for "per second" targets. */
  unitsPerRequest?: number;
}

async function postJson<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const response = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Metrics of every process, scraped once: proves the listeners work under load and sizes the answer. */
async function scrapeMetrics(stack: Stack): Promise<Record<string, { bytes: number; samples: number } | { error: string }>> {
  const result: Record<string, { bytes: number; samples: number } | { error: string }> = {};
  for (const [name, port] of Object.entries(stack.metricsPorts)) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      const text = await response.text();
      if (!response.ok) throw new Error(`status ${response.status}`);
      result[name] = { bytes: text.length, samples: text.split("\n").filter((l) => l && !l.startsWith("#")).length };
    } catch (error) {
      result[name] = { error: String(error) };
    }
  }
  return result;
}

/** One row per request of CPU µs per process, and their sum without the load generator. */
function cpuTable(results: CaseResult[], processes: string[], cpuOf: (r: CaseResult) => Record<string, number>): string[] {
  return [
    `| request | ${processes.join(" | ")} | total |`,
    `|---|${processes.map(() => "---|").join("")}---|`,
    ...results.map((r) => {
      const cpu = cpuOf(r);
      const total = Object.entries(cpu).filter(([p]) => p !== "client").reduce((a, [, v]) => a + v, 0);
      return `| ${r.name} | ${processes.map((p) => cpu[p] ?? "").join(" | ")} | ${Math.round(total)} |`;
    }),
  ];
}

function markdown(results: CaseResult[], scanRate: number | undefined, targets: Target[], metrics: Record<string, unknown>): string {
  const processes = [...new Set(results.flatMap((r) => Object.keys(r.cpuMicrosPerRequest)))];
  const ok = (met: boolean) => (met ? "met" : "**missed**");
  return [
    `Closed loop: ${CONNECTIONS} connections, ${durationSeconds} s (after 2 s of warm-up). Open loop: a fixed arrival rate of half the closed-loop req/s, ${durationSeconds} s (after ${OPEN_LOOP_WARMUP_S} s at that rate); latency from each request's due time; "send lag" is how late the generator itself sent (p99): above ${CLIENT_LAG_LIMIT_MS} ms (client-limited) the client machine, not the server, was the limit and the latencies say little about the server.`,
    "",
    "| request | saturating req/s | x bare Koa | errors | open-loop rate /s (achieved) | p50 ms | p90 ms | p99 ms | errors | send lag p99 ms | longest event-loop delay ms (process) | p99 <= 50 ms |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...results.map((r) => {
      const o = r.openLoop;
      const errors = o.errors + o.non2xx;
      return `| ${r.name} | ${r.saturating.requestsPerSecond} | ${r.ratioToBare.toFixed(3)} | ${r.saturating.errors + r.saturating.non2xx} | ${o.rate} (${o.achievedRate}) | ${o.p50} | ${o.p90} | ${o.p99} | ${errors} | ${o.sendLagP99}${o.clientLimited ? " (client-limited)" : ""} | ${longestStall(r.openLoopStalls)} | ${o.p99 <= P99_LIMIT_MS && errors === 0 ? "yes" : "no"} |`;
    }),
    "",
    ...(scanRate !== undefined ? [`Cursor scan (limit=1000, one client): ${scanRate} tickets/s.`, ""] : []),
    "CPU µs per request (closed-loop run; client = the load generator, this process):",
    "",
    ...cpuTable(results, processes, (r) => r.cpuMicrosPerRequest),
    "",
    "CPU µs per request at half the rate (open loop, its warm-up second included):",
    "",
    ...cpuTable(results, processes, (r) => r.openLoopCpuMicrosPerRequest ?? {}),
    "",
    "| target | value | required | |",
    "|---|---|---|---|",
    ...targets.map((t) => `| ${t.target} | ${t.value} | ${t.required} | ${ok(t.met)}${t.note ? ` (${t.note})` : ""} |`),
    "",
    `Metrics scraped at the end: ${Object.entries(metrics).map(([name, m]) => `${name} ${JSON.stringify(m)}`).join(", ")}`,
  ].join("\n");
}

/**
 * `kinds`: only these requests (with bare Koa, always), e.g. `pnpm bench player`; all when
 * unset. The cursor scan runs with the list.
 */
export async function productionSuite(kinds?: Kind[]): Promise<SuiteResult> {
  const began = Date.now();
  const wanted = (kind: Kind) => kind === "baseline" || kinds === undefined || kinds.includes(kind);
  const helloPort = await freePort();
  const hello = start(path.join(here, "koa-hello.ts"), { PORT: String(helloPort) }, true, { name: "koa-hello" });
  await waitForHttp(`http://127.0.0.1:${helloPort}/`);

  const stack = await startStack({
    CURSOR_SECRET,
    // The auto-close sweep would close seeded waiting tickets while we measure.
    AUTO_CLOSE_INTERVAL_MS: "0",
    // One client address, one token, a few sessions: the limits would refuse this load, so they
    // are raised; the shared counters are still consumed on every public and /player-api request.
    PUBLIC_RATE_LIMIT_PER_ADDRESS: "1000000000",
    PUBLIC_RATE_LIMIT_PER_TOKEN: "1000000000",
    PLAYER_API_RATE_LIMIT_PER_SESSION: "1000000000",
    PLAYER_API_RATE_LIMIT_PER_ADDRESS: "1000000000",
  });
  const demo = await stack.applyTenant(path.join(root, "scripts/demo-tenant.json"));
  const company = await stack.applyTenant(path.join(here, "tickets-tenant.json"));
  const demoKey = { authorization: `Bearer ${Object.values(demo.apiKeys)[0]!}` };
  const ticketsKey = { authorization: `Bearer ${company.apiKeys.bench!}` };
  const json = { "content-type": "application/json" };
  const gateway = stack.gateway;

  const client = new pg.Client({ connectionString: stack.databaseUrl, options: "-c search_path=tickets,public" });
  client.on("error", (error) => {
    if (!isCleaningUp()) progress(`bench database connection: ${error.message}`);
  });
  await client.connect();
  const admin = new pg.Client({ connectionString: stack.adminUrl });
  admin.on("error", () => undefined);
  await admin.connect();
  try {
    // The listed company: LIST_TICKETS bulk-loaded tickets over the last year.
    const games = ["galaxy", "farm", "racer", "dungeon"].map((ref) => {
      const game = company.games[ref]!;
      return { id: game.id, environmentId: Object.values(game.environments)[0]!.id };
    });
    const stepMs = Math.max(1, Math.floor((365 * 86_400_000) / LIST_TICKETS));
    await seedTickets(client, {
      companyId: company.companyId,
      games,
      start: new Date(Math.floor((Date.now() - 86_400_000) / 1000) * 1000 - LIST_TICKETS * stepMs),
      stepMs,
      players: Math.max(1000, Math.round(LIST_TICKETS / 4)),
    }, 1, LIST_TICKETS);
    progress(`seeded ${LIST_TICKETS} tickets`);

    // Pools: tickets for the actions, sessions (as the web page gets them) each with a chat ticket.
    const galaxy = games[0]!.id;
    let created = 0;
    const newTicket = () => {
      created++;
      const player = `bench-${created}`;
      return {
        gameId: galaxy,
        message: `Bench ticket ${created}: the rewards of the season pass never showed up in my inventory after the purchase.`,
        language: "en",
        channels: ["email"],
        platform: "android",
        metadata: { player: { id: player, name: `Player ${created}`, email: `${player}@example.com` }, tags: ["bug"], fields: { category: "payment", level: 12 } },
      };
    };
    const actionTickets: string[] = [];
    for (let i = 0; i < POOL; i++) actionTickets.push((await postJson<{ ticketId: string }>(`${gateway}/tickets`, ticketsKey, newTicket())).ticketId);
    const token = Object.values(demo.games.galaxy!.environments)[0]!.token;
    let sessionsMade = 0;
    const sessionBody = () => {
      sessionsMade++;
      const player = `bench-player-${sessionsMade}`;
      return { token, language: "en", player: { id: player, name: `Player ${sessionsMade}`, email: `${player}@example.com` }, tags: ["bug"] };
    };
    const sessions: { code: string; ticket: string }[] = [];
    for (let i = 0; i < POOL; i++) {
      const { sessionCode } = await postJson<{ sessionCode: string }>(`${gateway}/support/sessions`, {}, sessionBody());
      const { ticketId } = await postJson<{ ticketId: string }>(`${gateway}/player-api/tickets`, { authorization: `Session ${sessionCode}` }, { message: "My ship vanished after the jump." });
      sessions.push({ code: sessionCode, ticket: ticketId });
    }
    progress(`pools ready: ${POOL} tickets for actions, ${POOL} player sessions with a chat ticket`);

    // Each action request: one agent message and one status change. The status alternates per
    // ticket, so that every setStatus is a change.
    const actionCount = new Map<string, number>();
    const actionsBody = (ticket: string) => {
      const n = (actionCount.get(ticket) ?? 0) + 1;
      actionCount.set(ticket, n);
      return JSON.stringify({ actions: [{ type: "sendMessage", message: `Agent reply ${n}: could you send us the receipt?` }, { type: "setStatus", status: n % 2 === 0 ? "waiting" : "assigned" }] });
    };
    const firstPage = new URL(listUrl(gateway, { limit: 100 }));
    const get = (origin: string, p: string, headers: Record<string, string>): Omit<Case, "name" | "kind"> => ({ origin, method: "GET", request: () => ({ method: "GET", path: p, headers }) });
    const cases: Case[] = [
      { name: "bare Koa hello", kind: "baseline", ...get(`http://127.0.0.1:${helloPort}`, "/", {}) },
      { name: "GET /games", kind: "reference", ...get(gateway, "/games", demoKey) },
      { name: "GET /announcements", kind: "reference", ...get(gateway, "/announcements", demoKey) },
      { name: "GET /tickets?limit=100", kind: "list", unitsPerRequest: 100, ...get(gateway, firstPage.pathname + firstPage.search, ticketsKey) },
      {
        name: "POST /tickets",
        kind: "create",
        origin: gateway,
        method: "POST",
        request: () => ({ method: "POST", path: "/tickets", headers: { ...ticketsKey, ...json }, body: JSON.stringify(newTicket()) }),
      },
      {
        name: "POST /tickets/{id}/actions (sendMessage + setStatus)",
        kind: "actions",
        origin: gateway,
        method: "POST",
        request: (i) => {
          const ticket = actionTickets[i % POOL]!;
          return { method: "POST", path: `/tickets/${ticket}/actions`, headers: { ...ticketsKey, ...json }, body: actionsBody(ticket) };
        },
      },
      {
        name: "POST /support/sessions",
        kind: "session",
        origin: gateway,
        method: "POST",
        request: () => ({ method: "POST", path: "/support/sessions", headers: json, body: JSON.stringify(sessionBody()) }),
      },
      {
        name: "POST /player-api/tickets (open a chat ticket)",
        kind: "player",
        origin: gateway,
        method: "POST",
        request: (i) => ({
          method: "POST",
          path: "/player-api/tickets",
          headers: { authorization: `Session ${sessions[i % POOL]!.code}`, ...json },
          body: JSON.stringify({ message: `My ship ${i} vanished after the jump.` }),
        }),
      },
      {
        name: "POST /player-api/tickets/{id}/messages",
        kind: "player",
        origin: gateway,
        method: "POST",
        request: (i) => {
          const session = sessions[i % POOL]!;
          return { method: "POST", path: `/player-api/tickets/${session.ticket}/messages`, headers: { authorization: `Session ${session.code}`, ...json }, body: JSON.stringify({ message: `Still gone (${i})` }) };
        },
      },
    ];

    const selected = cases.filter((c) => wanted(c.kind));
    const watched = () => [{ name: "koa-hello", pid: hello.pid! }, ...stack.processes.map((p) => ({ name: p.name, pid: p.child.pid! }))];
    const meter = cpuMeter(watched, admin, new URL(stack.databaseUrl).pathname.slice(1));
    const results: CaseResult[] = [];
    let bare = NaN;
    for (const c of selected) {
      let i = 0;
      let before: CpuSnapshot | undefined;
      const first = c.request(i++);
      const row = await measure({
        name: c.name,
        url: c.origin + first.path,
        connections: CONNECTIONS,
        method: c.method,
        headers: first.headers,
        // A GET is the same request every time; a POST gets its own body (and pool entry).
        ...(c.method === "POST" ? { next: () => c.request(i++) } : {}),
        beforeMeasured: async () => {
          before = await meter.snapshot();
        },
      });
      const after = await meter.snapshot();
      const cpu = meter.perRequest(before!, after, row.requests ?? 0);
      // Only the processes on this request's path: the hello process for the baseline, the stack otherwise.
      const onPath = Object.fromEntries(Object.entries(cpu).filter(([name]) => (c.kind === "baseline" ? name === "koa-hello" || name === "client" : name !== "koa-hello")));
      if (c.kind === "baseline") bare = row.requestsPerSecond;
      const rate = Math.max(1, Math.round(row.requestsPerSecond / 2));
      progress(`${c.name}: open loop at ${rate}/s for ${durationSeconds} s`);
      const endStalls = await stallWindow(stack.metricsPorts);
      const openBefore = await meter.snapshot();
      const open = await openLoop({ origin: c.origin, rate, durationSeconds, warmupSeconds: OPEN_LOOP_WARMUP_S, request: () => c.request(i++) });
      // CPU over the whole open loop per request (the warm-up's included): at half the rate,
      // anything above the closed loop's figure is work that does not scale with the requests.
      const openCpu = meter.perRequest(openBefore, await meter.snapshot(), open.answered + Math.round(rate * OPEN_LOOP_WARMUP_S));
      // The bare Koa process serves no metrics: the window says how the stack idled meanwhile.
      const stalls = await endStalls();
      progress(`${c.name}: open loop achieved ${open.achievedRate}/s, p50 ${open.p50} p90 ${open.p90} p99 ${open.p99} ms, errors ${open.errors}, non-2xx ${open.non2xx}, send lag p99 ${open.sendLagP99} ms, longest event-loop delay ${longestStall(stalls)} ms`);
      results.push({ name: c.name, kind: c.kind, saturating: { ...row, cpuMicrosPerRequest: onPath }, ratioToBare: row.requestsPerSecond / bare, openLoop: open, openLoopStalls: stalls, openLoopCpuMicrosPerRequest: Object.fromEntries(Object.entries(openCpu).filter(([name]) => name in onPath)), cpuMicrosPerRequest: onPath });
    }

    let scanned: Awaited<ReturnType<typeof scan>> | undefined;
    if (wanted("list")) {
      progress(`cursor scan (limit=1000) over ${LIST_TICKETS} tickets, repeated for ${durationSeconds} s`);
      scanned = await scan(stack, ticketsKey, LIST_TICKETS, { minimum: LIST_TICKETS, budgetSeconds: Infinity, repeatSeconds: durationSeconds });
    }
    const metrics = await scrapeMetrics(stack);
    const targets = evaluateTargets(results, scanned?.ticketsPerSecond);
    const table = markdown(results, scanned?.ticketsPerSecond, targets, metrics);
    progress(`full suite done in ${Math.round((Date.now() - began) / 1000)} s`);
    return {
      rows: results.map((r) => r.saturating),
      table,
      details: {
        connections: CONNECTIONS,
        kinds: kinds ?? "all",
        listTickets: LIST_TICKETS,
        stack: { logLevel: "info", logs: path.relative(root, stack.logDir), metrics: "on", tracing: "off" },
        bareKoaRequestsPerSecond: bare,
        results,
        scan: scanned,
        targets,
        allTargetsMet: targets.every((t) => t.met),
        metrics,
        totalSeconds: Math.round((Date.now() - began) / 1000),
      },
    };
  } finally {
    await client.end().catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
}
