// `pnpm bench [full|reads|create|actions|list|player|sessions|reference|tickets|soak|agent-streams|workspace|flood|triage|triage-cost|routing|outbreaks|rules]`: throughput and latency of the request path, each
// layer measured in the same run so the ratios mean something on whatever machine runs it. Not a
// test. Without an argument: `full`, the production-like set (production.ts). Each run gets a
// directory scripts/bench/results/runs/<UTC time>-<suite>/ (results.json, the services' logs,
// CPU profiles with BENCH_CPU_PROF=1); the latest results of a suite are also copied to
// scripts/bench/results/<suite>.json. The markdown report goes to stdout, progress to stderr;
// docs/performance.md records the runs.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { durationSeconds, measure, type Row, type SuiteResult } from "./measure.ts";
import { productionSuite } from "./production.ts";
import { cleanup, cpuProfiling, freePort, isCleaningUp, progress, root, runDirectory, start, startStack, waitForHttp } from "./stack.ts";
import { soakSuite } from "./soak.ts";
import { agentStreamsSuite } from "./agent-streams.ts";
import { ticketsSuite } from "./tickets.ts";
import { workspaceSuite } from "./workspace.ts";
import { triageSuite } from "./triage.ts";
import { floodSuite } from "./flood.ts";
import { routingSuite } from "./routing.ts";
import { outbreaksSuite } from "./outbreaks.ts";
import { triageCostSuite } from "./triage-cost.ts";
import { rulesSuite } from "./rules.ts";

const here = import.meta.dirname;

async function referenceSuite(): Promise<SuiteResult> {
  const rows: Row[] = [];

  const helloPort = await freePort();
  start(path.join(here, "koa-hello.ts"), { PORT: String(helloPort) });
  await waitForHttp(`http://127.0.0.1:${helloPort}/`);

  const echoPort = await freePort();
  const viaPort = await freePort();
  start(path.join(here, "echo-server.ts"), { PORT: String(echoPort) });
  await waitForHttp(`http://127.0.0.1:${echoPort}/healthz`);
  start(path.join(here, "koa-echo.ts"), { PORT: String(viaPort), ECHO_URL: `http://127.0.0.1:${echoPort}` });
  await waitForHttp(`http://127.0.0.1:${viaPort}/`);

  // The whole stack in a database and NATS prefix of its own.
  const stack = await startStack();
  const tenant = await stack.applyTenant(path.join(root, "scripts/demo-tenant.json"));
  const headers = { authorization: `Bearer ${Object.values(tenant.apiKeys)[0]!}` };

  for (const connections of [1, 32]) {
    rows.push(await measure({ name: "bare Koa hello", url: `http://127.0.0.1:${helloPort}/`, connections }));
    rows.push(await measure({ name: "Koa -> one Connect RPC", url: `http://127.0.0.1:${viaPort}/`, connections }));
    rows.push(await measure({ name: "GET /games (stack)", url: `${stack.gateway}/games`, connections, headers }));
    rows.push(await measure({ name: "GET /announcements (stack)", url: `${stack.gateway}/announcements`, connections, headers }));
  }

  const bare = new Map(rows.filter((r) => r.name === "bare Koa hello").map((r) => [r.connections, r.requestsPerSecond]));
  const table = [
    `| path | connections | req/s | p50 ms | p99 ms | x bare Koa | errors |`,
    `|---|---|---|---|---|---|---|`,
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${(r.requestsPerSecond / (bare.get(r.connections) ?? NaN)).toFixed(2)} | ${r.errors + r.non2xx} |`,
    ),
  ].join("\n");
  return { rows, table };
}

function report(suite: string, result: SuiteResult): void {
  console.log(result.table);
  const json = JSON.stringify(
    {
      suite,
      at: new Date().toISOString(),
      durationSeconds,
      machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100), node: process.version },
      runDirectory: path.relative(root, runDirectory()),
      cpuProfiles: cpuProfiling ? path.relative(root, path.join(runDirectory(), "cpu")) : null,
      rows: result.rows,
      ...result.details,
    },
    null,
    2,
  );
  mkdirSync(path.join(here, "results"), { recursive: true });
  writeFileSync(path.join(runDirectory(), "results.json"), json);
  writeFileSync(path.join(here, "results", `${suite}.json`), json);
  progress(`results: ${path.relative(root, path.join(runDirectory(), "results.json"))} (and scripts/bench/results/${suite}.json)`);
}

const suite = process.argv[2] ?? "full";
const suites: Record<string, () => Promise<SuiteResult>> = {
  // The production-like set, whole or in parts (each part with bare Koa, for its ratios).
  full: () => productionSuite(),
  reads: () => productionSuite(["reference"]),
  create: () => productionSuite(["create"]),
  actions: () => productionSuite(["actions"]),
  list: () => productionSuite(["list"]),
  player: () => productionSuite(["player"]),
  sessions: () => productionSuite(["session"]),
  // Suites of their own.
  reference: referenceSuite,
  tickets: ticketsSuite,
  soak: soakSuite,
  "agent-streams": agentStreamsSuite,
  workspace: workspaceSuite,
  // A flood of ticket creations at 16x the saturating concurrency (admission control).
  flood: floodSuite,
  // In-process, no stack: the triage classifier on its labelled corpus.
  triage: triageSuite,
  routing: routingSuite,
  outbreaks: outbreaksSuite,
  // The whole stack: what classifying a new ticket adds per creation.
  "triage-cost": triageCostSuite,
  rules: rulesSuite,
};
const runSuite = suites[suite];
if (!runSuite) {
  console.error(`Unknown suite ${suite}; known: ${Object.keys(suites).join(", ")}`);
  process.exit(2);
}
runDirectory(suite);
progress(`run directory ${path.relative(root, runDirectory())}${cpuProfiling ? " (CPU profiles into cpu/)" : ""}`);
let exitCode = 0;
try {
  report(suite, await runSuite());
} catch (error) {
  // A suite that measured but missed its limits (the soak) carries its report: keep it.
  const result = (error as { result?: SuiteResult }).result;
  if (result) report(suite, result);
  // After Ctrl-C the suite fails on the stack going away: not worth printing.
  if (!isCleaningUp()) console.error(error);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
