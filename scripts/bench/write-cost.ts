// `pnpm exec node scripts/bench/write-cost.ts`: CPU time and Postgres statements per request, per process,
// of the write path (POST /tickets, ticket actions, POST /support/sessions) and of a list page,
// through the whole stack. Each case sends a fixed number of requests (WRITE_COST_REQUESTS,
// default 2000) at WRITE_COST_CONNECTIONS (default 16) after a warm-up, lets the outbox relays
// drain, and divides each process's CPU time (process.cpuUsage over IPC, see cost-probe.ts) and
// statement count by the requests; Postgres is the CPU time of the bench database's backends
// (/proc/<pid>/stat, so Linux only, on the same machine). Each process's idle CPU rate, sampled
// just before, is subtracted. WRITE_COST_CPU_PROF=<dir> also writes
// a V8 CPU profile per process there. Not a test: a table on stdout, progress on stderr.
import { readFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { cleanup, progress, startStack, type Stack } from "./stack.ts";

const here = import.meta.dirname;
const REQUESTS = Number(process.env.WRITE_COST_REQUESTS ?? 2000);
const WARMUP = Math.max(100, Math.round(REQUESTS / 5));
const CONNECTIONS = Number(process.env.WRITE_COST_CONNECTIONS ?? 16);
const CPU_PROF = process.env.WRITE_COST_CPU_PROF;
const TICKS_PER_SECOND = 100;
const IDLE_MS = 3000;
/** Which cases run (create, list, actions, sessions); all by default. Actions need create first. */
const CASES = new Set((process.env.WRITE_COST_CASES ?? "create,list,actions,sessions").split(","));

interface Probe {
  cpu: { user: number; system: number };
  statements: Record<string, number>;
}

function probe(stack: Stack, name: string): Promise<Probe> {
  const child = stack.processes.find((p) => p.name === name)!.child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not answer the cost probe`)), 10_000);
    const onMessage = (message: Probe & { costProbe?: boolean }) => {
      if (message?.costProbe !== true) return;
      clearTimeout(timer);
      child.off("message", onMessage);
      resolve(message);
    };
    child.on("message", onMessage);
    child.send({ costProbe: true }, (error) => {
      if (error) {
        clearTimeout(timer);
        reject(error);
      }
    });
  });
}

/** CPU ticks of each backend of the bench database, by pid. */
async function postgresTicks(client: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [database]);
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // ended in between
    }
  }
  return ticks;
}

const SERVICES = ["gateway", "tickets", "players", "media", "content"] as const;

interface Snapshot {
  probes: Record<string, Probe>;
  postgres: Map<number, number>;
}

async function snapshot(stack: Stack, client: pg.Client, database: string): Promise<Snapshot> {
  const probes: Record<string, Probe> = {};
  for (const name of SERVICES) probes[name] = await probe(stack, name);
  return { probes, postgres: await postgresTicks(client, database) };
}

function fire(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error: unknown, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)));
  });
}

interface Case {
  name: string;
  method: "GET" | "POST";
  /** A fresh request each time: path and body. */
  next: () => { path: string; body?: string };
  headers: Record<string, string>;
}

interface CaseResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failed: number;
  cpuMicros: Record<string, number>;
  statements: Record<string, number>;
  statementTexts: Record<string, Record<string, number>>;
}

async function runCase(stack: Stack, client: pg.Client, database: string, c: Case): Promise<CaseResult> {
  const base = new URL(stack.gateway);
  const options = (amount: number): autocannon.Options => ({
    url: stack.gateway,
    connections: CONNECTIONS,
    amount,
    method: c.method,
    headers: c.headers,
    requests: [{ setupRequest: (request) => { const { path: p, body } = c.next(); return { ...request, path: p, ...(body !== undefined ? { body } : {}) }; } }],
  });
  void base;
  await fire(options(WARMUP));
  await new Promise((r) => setTimeout(r, 1500));
  // What each process spends idle (timers, relay polls) over IDLE_MS, subtracted from the run
  // at the same rate: on a busy machine a slow run would otherwise charge it to the requests.
  const idleFrom = await snapshot(stack, client, database);
  const idleBegan = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const before = await snapshot(stack, client, database);
  const idleMs = performance.now() - idleBegan;
  const began = performance.now();
  const result = await fire(options(REQUESTS));
  // The outbox relays publish right after commit: their work is part of each write.
  await new Promise((r) => setTimeout(r, 1500));
  const after = await snapshot(stack, client, database);
  const runMs = performance.now() - began;
  const cpuOf = (s: Snapshot, name: string) => s.probes[name]!.cpu.user + s.probes[name]!.cpu.system;
  const cpuMicros: Record<string, number> = {};
  const statements: Record<string, number> = {};
  const statementTexts: Record<string, Record<string, number>> = {};
  for (const name of SERVICES) {
    const a = after.probes[name]!;
    const b = before.probes[name]!;
    const idle = ((cpuOf(before, name) - cpuOf(idleFrom, name)) / idleMs) * runMs;
    cpuMicros[name] = Math.round((cpuOf(after, name) - cpuOf(before, name) - idle) / REQUESTS);
    let total = 0;
    const texts: Record<string, number> = {};
    for (const [text, count] of Object.entries(a.statements)) {
      const delta = count - (b.statements[text] ?? 0);
      if (delta <= 0) continue;
      total += delta;
      texts[text] = Math.round((delta / REQUESTS) * 100) / 100;
    }
    statements[name] = Math.round((total / REQUESTS) * 100) / 100;
    statementTexts[name] = texts;
  }
  let ticks = 0;
  for (const [pid, t] of after.postgres) ticks += t - (before.postgres.get(pid) ?? 0);
  cpuMicros.postgres = Math.round((ticks / TICKS_PER_SECOND) * 1e6 / REQUESTS);
  const failed = result.errors + result.non2xx;
  const row = { name: c.name, requestsPerSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, failed, cpuMicros, statements, statementTexts };
  progress(`${c.name}: ${row.requestsPerSecond} req/s p50 ${row.p50} p99 ${row.p99} failed ${failed}; CPU us/request ${JSON.stringify(cpuMicros)}; statements/request ${JSON.stringify(statements)}`);
  return row;
}

async function main(): Promise<void> {
  const execArgv = ["--import", path.join(here, "cost-probe.ts")];
  if (CPU_PROF) execArgv.push("--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`);
  const stack = await startStack(
    { AUTO_CLOSE_INTERVAL_MS: "0", PUBLIC_RATE_LIMIT_PER_ADDRESS: "100000000", PUBLIC_RATE_LIMIT_PER_TOKEN: "100000000" },
    { execArgv },
  );
  const tenant = await stack.applyTenant(path.join(here, "tickets-tenant.json"));
  const apiKey = { authorization: `Bearer ${tenant.apiKeys.bench!}` };
  const json = { ...apiKey, "content-type": "application/json" };
  const galaxy = tenant.games.galaxy!;
  const envToken = Object.values(galaxy.environments)[0]!.token;
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: stack.adminUrl });
  await client.connect();

  let n = 0;
  const create: Case = {
    name: "POST /tickets",
    method: "POST",
    headers: json,
    next: () => {
      n++;
      const player = `cost-${n}`;
      return {
        path: "/tickets",
        body: JSON.stringify({
          gameId: galaxy.id,
          message: `Cost ticket ${n}: the rewards of the season pass never showed up in my inventory after the purchase.`,
          language: "en",
          channels: ["email"],
          platform: "android",
          metadata: { player: { id: player, name: `Player ${n}`, email: `${player}@example.com` }, tags: ["bug"], fields: { category: "payment", level: 12 } },
        }),
      };
    },
  };
  const results: CaseResult[] = [];
  try {
    if (CASES.has("create")) results.push(await runCase(stack, client, database, create));
    const page = (await (await fetch(`${stack.gateway}/tickets?limit=1000`, { headers: apiKey })).json()) as { tickets: { id: string }[] };
    const ids = page.tickets.map((t) => t.id);
    if (CASES.has("list")) results.push(await runCase(stack, client, database, { name: "GET /tickets?limit=100", method: "GET", headers: apiKey, next: () => ({ path: "/tickets?limit=100" }) }));
    let a = 0;
    if (CASES.has("actions")) results.push(
      await runCase(stack, client, database, {
        name: "POST /tickets/{id}/actions (sendMessage + setStatus)",
        method: "POST",
        headers: json,
        next: () => {
          a++;
          return {
            path: `/tickets/${ids[a % ids.length]}/actions`,
            body: JSON.stringify({ actions: [{ type: "sendMessage", message: `Agent answer ${a}: we refunded the purchase.` }, { type: "setStatus", status: "waiting" }] }),
          };
        },
      }),
    );
    let s = 0;
    if (CASES.has("sessions")) results.push(
      await runCase(stack, client, database, {
        name: "POST /support/sessions",
        method: "POST",
        headers: { "content-type": "application/json" },
        next: () => {
          s++;
          return { path: "/support/sessions", body: JSON.stringify({ token: envToken, language: "en", player: { id: `session-${s}`, name: `Session ${s}` } }) };
        },
      }),
    );
  } finally {
    await client.end();
  }

  const columns = [...SERVICES, "postgres"];
  console.log(`${REQUESTS} requests per case at ${CONNECTIONS} connections (after ${WARMUP} warm-up).\n`);
  console.log(`| request | req/s | p50 ms | p99 ms | failed | ${columns.map((c) => `${c} CPU us`).join(" | ")} | statements (tickets/players/media/content) |`);
  console.log(`|---|---|---|---|---|${columns.map(() => "---").join("|")}|---|`);
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.failed} | ${columns.map((c) => r.cpuMicros[c]).join(" | ")} | ${r.statements.tickets}/${r.statements.players}/${r.statements.media}/${r.statements.content} |`,
    );
  }
  console.log("\nStatements per request, by text:");
  for (const r of results) {
    console.log(`\n${r.name}`);
    for (const name of SERVICES) for (const [text, count] of Object.entries(r.statementTexts[name]!)) console.log(`  ${name}: ${count}  ${text}`);
  }
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanup();
}
