// `pnpm bench flood`: the stack as deployed under a flood of ticket creations, as an outage brings
// them: POST /tickets first at the saturating concurrency (SATURATING connections, closed loop),
// then at 16 times that (clients waiting Retry-After when refused, and clients retrying at once),
// and a mixed flood (creations and GET /tickets, half each), while two light probes at a steady
// pace (GET /games, a reference read, and GET /tickets?limit=20) measure what the other
// routes see. The targets (admission control, docs/operations.md): goodput at 16x at least 90 %
// of the saturating rate, refusals answered within 50 ms (p99), the p99 of accepted creations
// within twice its saturating value, the probes' p99 within twice their value at saturation (their
// quiet value reported beside it), no 504, no circuit breaker opened, and the gateway's memory
// bounded. Each answer's latency is kept with its status, so refusals and accepted answers are
// measured apart.
import { readFileSync } from "node:fs";
import path from "node:path";
import { durationSeconds, type Row, type SuiteResult } from "./measure.ts";
import { Worker } from "node:worker_threads";
import { closedLoop, combineLoops, percentile, round, type LoopResult, type Request } from "./closed-loop.ts";
import { isCleaningUp, onBeforeStop, progress, root, startStack, type Stack } from "./stack.ts";
import { drainBacklog, stallWindow, type ProcessStalls } from "./stalls.ts";
import { cpuMeter } from "./cpu.ts";
import pg from "pg";

const here = import.meta.dirname;
/** The lowest concurrency at which ticket creation reaches its best rate on the 2-core machine (docs/performance.md), as the gateway admits by default (MAX_WRITES_IN_PROGRESS). */
const SATURATING = Number(process.env.BENCH_FLOOD_SATURATING ?? 16);
const FLOOD = SATURATING * 16;
const PROBE_CONNECTIONS = 2;
/** Each probe connection asks once per this many ms (20 requests a second a connection). */
const PROBE_PACING_MS = 50;
/** Alternating rounds of saturation and the flood, pooled (BENCH_FLOOD_ROUNDS). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_FLOOD_ROUNDS ?? 3));

/**
 * The gateway's own time for its 503 answers (its access log: from the request's arrival in Koa
 * to the answer) within the windows [from, to] (epoch ms): what the server spends on a refusal,
 * without the time this generator, on the same CPUs, takes to send and read it.
 */
function refusalTimesInGateway(stack: Stack, windows: [number, number][]): number[] {
  const times: number[] = [];
  for (const line of readFileSync(path.join(stack.logDir, "gateway.log"), "utf8").split("\n")) {
    if (!line.includes('"status":503')) continue;
    try {
      const entry = JSON.parse(line) as { time: string; ms: number; status: number };
      const at = Date.parse(entry.time);
      if (entry.status === 503 && windows.some(([from, to]) => at >= from && at <= to)) times.push(entry.ms);
    } catch {
      // a line cut by the log's buffering: not counted
    }
  }
  return times;
}

/** The resident memory of a process in MB (Linux). */
function residentMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
    return line ? Math.round(Number(line.replace(/\D+/g, "")) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Runs `work` while sampling the gateway's memory every 250 ms (the highest value seen), and
 * reads each process's event-loop delays and GC time over it: whether a slow probe met a stall of
 * a process (a long task, a major GC) or waited for a core.
 */
async function withPeakMemory<T>(stack: Stack, work: () => Promise<T>): Promise<{ result: T; peakMb: number; stalls: Record<string, ProcessStalls> }> {
  const pid = stack.processes.find((p) => p.name === "gateway")?.child.pid;
  let peakMb = residentMb(pid);
  const timer = setInterval(() => (peakMb = Math.max(peakMb, residentMb(pid))), 250);
  const endWindow = await stallWindow(stack.metricsPorts);
  try {
    const result = await work();
    return { result, peakMb, stalls: await endWindow() };
  } finally {
    clearInterval(timer);
  }
}

/** One line per process: its longest event-loop delay, the delays' p99, and its GC time (major). */
function stallsLine(label: string, stalls: Record<string, ProcessStalls>): string {
  const parts = Object.entries(stalls).map(([name, s]) => `${name} ${s.lagMaxMs}/${s.lagP99Ms} ms, GC ${s.gcMs} (${s.majorGcMs}) ms`);
  return `- ${label}: ${parts.join("; ")}`;
}

export interface ProbeSettings {
  origin: string;
  connections: number;
  seconds: number;
  pacingMs: number;
  probes: { name: string; request: Request }[];
}

/**
 * The probes, run in a worker thread: its own event loop, so that a probe's latency is what the
 * stack answers, not the time this process's flood of hundreds of connections keeps the answer
 * waiting to be read (the refusals' gateway-side p99 of 1.6 ms against 173 ms as the flood's loop
 * read them showed that wait).
 */
function probesApart(settings: ProbeSettings): Promise<LoopResult[]> {
  const worker = new Worker(new URL("./probe-worker.ts", import.meta.url), { workerData: settings });
  onBeforeStop(() => void worker.terminate());
  return new Promise((resolve, reject) => {
    worker.once("message", (results: LoopResult[]) => resolve(results));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the probes' worker exited with ${code} before answering`)));
  });
}

function toRow(result: LoopResult): Row {
  return {
    name: result.name,
    connections: result.connections,
    requestsPerSecond: result.goodput,
    p50: result.accepted.p50,
    p99: result.accepted.p99,
    mean: NaN,
    errors: result.errors,
    non2xx: result.refused.count,
    statuses: result.statuses,
    refused: result.refused,
    windowMonotonicUs: result.windowMonotonicUs,
  };
}

export async function floodSuite(): Promise<SuiteResult> {
  const stack = await startStack({
    AUTO_CLOSE_INTERVAL_MS: "0",
    PUBLIC_RATE_LIMIT_PER_ADDRESS: "1000000000",
    PUBLIC_RATE_LIMIT_PER_TOKEN: "1000000000",
  });
  const demo = await stack.applyTenant(path.join(root, "scripts/demo-tenant.json"));
  const company = await stack.applyTenant(path.join(here, "tickets-tenant.json"));
  const demoKey = { authorization: `Bearer ${Object.values(demo.apiKeys)[0]!}` };
  const key = { authorization: `Bearer ${company.apiKeys.bench!}` };
  const galaxy = company.games.galaxy!.id;
  let created = 0;
  const create = (): Request => {
    created += 1;
    const player = `flood-${created}`;
    return {
      method: "POST",
      path: "/tickets",
      headers: { ...key, "content-type": "application/json" },
      body: JSON.stringify({
        gameId: galaxy,
        message: `Flood ticket ${created}: the servers dropped me in the middle of a match and I lost my ranked points.`,
        language: "en",
        channels: ["email"],
        metadata: { player: { id: player, email: `${player}@example.com` }, tags: ["bug"] },
      }),
    };
  };
  const list = (): Request => ({ method: "GET", path: "/tickets?limit=20", headers: key });
  const games = (): Request => ({ method: "GET", path: "/games", headers: demoKey });
  const probes = (label: string) =>
    probesApart({
      origin: stack.gateway, connections: PROBE_CONNECTIONS, seconds: durationSeconds, pacingMs: PROBE_PACING_MS,
      probes: [{ name: `GET /games (probe, ${label})`, request: games() }, { name: `GET /tickets?limit=20 (probe, ${label})`, request: list() }],
    });

  // Warm-up: JIT, pools, caches, at the saturating concurrency (a shorter one left the first
  // saturating round a fifth slower than the next ones).
  await closedLoop("warm-up", stack.gateway, SATURATING, 6, create, false, 0, isCleaningUp);
  await closedLoop("warm-up", stack.gateway, 4, 2, list, false, 0, isCleaningUp);
  progress("warmed up");

  // Each measurement starts with no event left to handle from the one before (drainBacklog), and
  // each process's CPU time is read over it (ms a second; "client" is this process: the
  // generator and the probes' thread; "postgres" the bench database's backends): where the two
  // cores went.
  const admin = new pg.Client({ connectionString: stack.adminUrl });
  await admin.connect();
  const meter = cpuMeter(() => stack.processes.map(({ name, child }) => ({ name, pid: child.pid! })), admin, new URL(stack.databaseUrl).pathname.slice(1));
  const drained: Record<string, { ms: number; left: number }> = {};
  const cpuMsPerSecond: Record<string, Record<string, number>> = {};
  const phase = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    drained[label] = await drainBacklog(stack.metricsPorts);
    const before = await meter.snapshot();
    const started = performance.now();
    const result = await work();
    const perSecond = meter.perRequest(before, await meter.snapshot(), (performance.now() - started) / 1000);
    cpuMsPerSecond[label] = Object.fromEntries(Object.entries(perSecond).map(([name, micros]) => [name, Math.round(micros / 1000)]));
    return result;
  };

  const quiet = await phase("quiet", () => probes("quiet"));
  progress(`probes alone: ${quiet.map((p) => `${p.name} p99 ${p.accepted.p99} ms`).join(", ")}`);
  // Saturation and the flood in alternating rounds, each pooled over its rounds: the comparison
  // is made on the machine as it was during both (a slow minute weighs on each alike), and a
  // probe's p99 rests on the answers of every round. The probes run beside the saturating load
  // too: the flood is compared with saturation under the same side load, and the probes' p99 at
  // saturation is what the flood must keep.
  const saturatingRounds: { result: [LoopResult, LoopResult[]]; stalls: Record<string, ProcessStalls> }[] = [];
  const floodRounds: { result: [LoopResult, LoopResult[]]; stalls: Record<string, ProcessStalls> }[] = [];
  const floodPeaksMb: number[] = [];
  let idleMb = NaN;
  const floodWindows: [number, number][] = [];
  for (let n = 1; n <= ROUNDS; n++) {
    const saturation = await phase(`saturating, round ${n}`, () =>
      withPeakMemory(stack, () =>
        Promise.all([closedLoop(`POST /tickets at ${SATURATING} connections (saturating)`, stack.gateway, SATURATING, durationSeconds, create, false, 0, isCleaningUp), probes("at saturation")]),
      ),
    );
    saturatingRounds.push(saturation);
    progress(`saturating, round ${n}: ${saturation.result[0].goodput}/s, p99 ${saturation.result[0].accepted.p99} ms, statuses ${JSON.stringify(saturation.result[0].statuses)}; probes' p99 ${saturation.result[1].map((p) => p.accepted.p99).join(", ")} ms`);
    if (n === 1) idleMb = residentMb(stack.processes.find((p) => p.name === "gateway")?.child.pid);

    const floodStarted = Date.now();
    const flood = await phase(`flood, round ${n}`, () =>
      withPeakMemory(stack, () =>
        Promise.all([closedLoop(`POST /tickets at ${FLOOD} connections (16x), clients waiting Retry-After`, stack.gateway, FLOOD, durationSeconds, create, true, 0, isCleaningUp), probes("during the flood")]),
      ),
    );
    floodRounds.push(flood);
    floodPeaksMb.push(flood.peakMb);
    floodWindows.push([floodStarted, Date.now()]);
    const [floodRound, floodRoundProbes] = flood.result;
    progress(`flood, round ${n}: ${floodRound.goodput}/s, statuses ${JSON.stringify(floodRound.statuses)}, refused p99 ${floodRound.refused.p99} ms, accepted p99 ${floodRound.accepted.p99} ms; probes' p99 ${floodRoundProbes.map((p) => p.accepted.p99).join(", ")} ms`);
  }
  const saturating = combineLoops(saturatingRounds.map((r) => r.result[0]));
  const saturatingProbes = quiet.map((_, i) => combineLoops(saturatingRounds.map((r) => r.result[1][i]!)));
  const floodResult = combineLoops(floodRounds.map((r) => r.result[0]));
  const floodProbes = quiet.map((_, i) => combineLoops(floodRounds.map((r) => r.result[1][i]!)));
  // Log lines reach the file within the logger's flush interval; the log is read once, for every round.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const floodRefusalsInGateway = refusalTimesInGateway(stack, floodWindows).sort((a, b) => a - b);
  const refusalsInGateway = { count: floodRefusalsInGateway.length, p50: round(percentile(floodRefusalsInGateway, 50)), p99: round(percentile(floodRefusalsInGateway, 99)) };
  // Clients that retry at once whatever the answer says: every refusal costs the gateway (and
  // this generator, on the same machine) a request.
  const hammer = await phase("hammering", () =>
    withPeakMemory(stack, () =>
      Promise.all([closedLoop(`POST /tickets at ${FLOOD} connections (16x), clients ignoring Retry-After`, stack.gateway, FLOOD, durationSeconds, create, false, 0, isCleaningUp), probes("during the hammering")]),
    ),
  );
  const [hammerResult, hammerProbes] = hammer.result;
  progress(`hammering: ${hammerResult.goodput}/s, statuses ${JSON.stringify(hammerResult.statuses)}, refused p99 ${hammerResult.refused.p99} ms`);

  const mixed = await phase("mixed flood", () =>
    withPeakMemory(stack, () =>
      Promise.all([
        closedLoop(`POST /tickets at ${FLOOD / 2} connections (mixed flood)`, stack.gateway, FLOOD / 2, durationSeconds, create, true, 0, isCleaningUp),
        closedLoop(`GET /tickets?limit=20 at ${FLOOD / 2} connections (mixed flood)`, stack.gateway, FLOOD / 2, durationSeconds, list, true, 0, isCleaningUp),
        probes("during the mixed flood"),
      ]),
    ),
  );
  const [mixedCreate, mixedList, mixedProbes] = mixed.result;
  progress(`mixed: creations ${mixedCreate.goodput}/s, lists ${mixedList.goodput}/s`);
  drained["after the mixed flood"] = await drainBacklog(stack.metricsPorts);
  await admin.end();

  const dependencies = (await (await fetch(`${stack.gateway}/healthz/dependencies`)).json()) as { services: Record<string, { breaker: string }> };
  const breakers = Object.fromEntries(Object.entries(dependencies.services).map(([name, report]) => [name, report.breaker]));

  const all = [...quiet, saturating, ...saturatingProbes, floodResult, ...floodProbes, hammerResult, ...hammerProbes, mixedCreate, mixedList, ...mixedProbes];
  const timeouts = all.reduce((sum, r) => sum + (r.statuses["504"] ?? 0), 0);
  const unexpected = all.reduce((sum, r) => sum + Object.entries(r.statuses).filter(([status]) => !["200", "503", "429"].includes(status)).reduce((s, [, n]) => s + n, 0), 0);
  /**
   * The worst of the probes' p99 ratios, each against the same probe in `reference` (counted as
   * at least 5 ms). In the mixed flood GET /tickets is itself flooded (half its connections read it):
   * there only GET /games is another route.
   */
  const probeRatio = (during: LoopResult[], reference: LoopResult[], onlyOtherRoutes = false) =>
    Math.max(...during.map((p, i) => (onlyOtherRoutes && !p.name.startsWith("GET /games") ? 0 : p.accepted.p99 / Math.max(reference[i]!.accepted.p99, 5))));
  const floodPeakMb = Math.max(...floodPeaksMb);
  const peakMb = Math.max(floodPeakMb, hammer.peakMb, mixed.peakMb);
  const targets = [
    { target: "goodput at 16x / saturating rate", value: round(floodResult.goodput / saturating.goodput), required: ">= 0.9" , met: floodResult.goodput >= 0.9 * saturating.goodput },
    { target: "refusals' p99 in the gateway (ms; as this generator saw them: " + floodResult.refused.p99 + ")", value: refusalsInGateway.p99, required: "<= 50", met: !(refusalsInGateway.p99 > 50) },
    { target: "accepted creations' p99 at 16x / at saturation", value: round(floodResult.accepted.p99 / saturating.accepted.p99), required: "<= 2", met: floodResult.accepted.p99 <= 2 * saturating.accepted.p99 },
    { target: "probes' p99 during the flood / at saturation", value: round(probeRatio(floodProbes, saturatingProbes)), required: "<= 2", met: probeRatio(floodProbes, saturatingProbes) <= 2 },
    { target: "GET /games probe's p99 during the mixed flood / at saturation", value: round(probeRatio(mixedProbes, saturatingProbes, true)), required: "<= 2", met: probeRatio(mixedProbes, saturatingProbes, true) <= 2 },
    { target: "probes' p99 during the flood / quiet (quiet counted as at least 5 ms)", value: round(probeRatio(floodProbes, quiet)), required: "<= 2", met: probeRatio(floodProbes, quiet) <= 2 },
    { target: "GET /games probe's p99 during the mixed flood / quiet", value: round(probeRatio(mixedProbes, quiet, true)), required: "<= 2", met: probeRatio(mixedProbes, quiet, true) <= 2 },
    { target: "gateway memory: peak during the floods - after saturation (MB)", value: peakMb - idleMb, required: "<= 150", met: peakMb - idleMb <= 150 },
    { target: "504 answers", value: timeouts, required: "0", met: timeouts === 0 },
    { target: "answers other than 200, 429 and 503; transport errors", value: `${unexpected}; ${all.reduce((s, r) => s + r.errors, 0)}`, required: "0; 0", met: unexpected === 0 && all.every((r) => r.errors === 0) },
    { target: "circuit breakers open after the floods", value: Object.entries(breakers).filter(([, state]) => state !== "closed").map(([name]) => name).join(", ") || "none", required: "none", met: Object.values(breakers).every((state) => state === "closed") },
  ];

  const line = (r: LoopResult) =>
    `| ${r.name} | ${r.connections} | ${r.goodput} | ${r.accepted.p50} | ${r.accepted.p99} | ${r.refused.count} | ${r.refused.p99} | ${JSON.stringify(r.statuses)} |`;
  const table = [
    `Closed loops of ${durationSeconds} s; saturation and the flood in ${ROUNDS} alternating rounds, each pooled over its rounds; RPC_MAX_IN_FLIGHT ${process.env.RPC_MAX_IN_FLIGHT ?? "64 (default)"}. Gateway memory: ${idleMb} MB after the first saturating round, peak ${floodPeakMb} MB in the flood, ${hammer.peakMb} MB in the hammering, ${mixed.peakMb} MB in the mixed flood. The targets are on the flood of clients waiting Retry-After (as the typed client does); the hammering (clients retrying at once) is measured beside it: there this generator, on the same 2 cores, sends thousands of requests a second.`,
    "",
    "| load | connections | 2xx/s | 2xx p50 ms | 2xx p99 ms | refused | refused p99 ms | statuses |",
    "|---|---|---|---|---|---|---|---|",
    ...all.map(line),
    "",
    "| target | value | required | |",
    "|---|---|---|---|",
    ...targets.map((t) => `| ${t.target} | ${t.value} | ${t.required} | ${t.met ? "met" : "**missed**"} |`),
    "",
    "Each process's longest event-loop delay / the delays' p99, and its time in GC (of it major), over each measurement:",
    "",
    ...saturatingRounds.flatMap((saturation, i) => [stallsLine(`saturating, round ${i + 1}`, saturation.stalls), stallsLine(`the flood, round ${i + 1}`, floodRounds[i]!.stalls)]),
    stallsLine("the hammering", hammer.stalls),
    stallsLine("the mixed flood", mixed.stalls),
    "",
    "CPU of each process over each measurement, ms a second (2 cores: 2,000 at most; client: this generator and its probes):",
    "",
    ...Object.entries(cpuMsPerSecond).map(([label, byProcess]) => `- ${label}: ${Object.entries(byProcess).map(([name, ms]) => `${name} ${ms}`).join(", ")}; in all ${Object.values(byProcess).reduce((a, b) => a + b, 0)}`),
    "",
    `Events left to handle before each measurement (waited for, ms; left after 60 s): ${Object.entries(drained).map(([label, d]) => `${label} ${d.ms}${d.left > 0 ? ` (${d.left} left)` : ""}`).join(", ")}.`,
  ].join("\n");
  return { rows: all.map(toRow), table, details: { rounds: ROUNDS, targets, breakers, floodRefusalsInGateway: refusalsInGateway, memoryMb: { afterSaturation: idleMb, flood: floodPeakMb, hammering: hammer.peakMb, mixed: mixed.peakMb }, stalls: { saturating: saturatingRounds.map((r) => r.stalls), flood: floodRounds.map((r) => r.stalls), hammering: hammer.stalls, mixed: mixed.stalls }, cpuMsPerSecond, drained } };
}
