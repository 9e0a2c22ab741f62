// `pnpm bench soak`: memory of every process of the stack under a long mixed load through the
// gateway (ticket creations, lists, actions and events, reference reads, unknown API keys,
// support sessions and the player side), with production logging (LOG_LEVEL=info, JSON lines
// to a file per service). Every SOAK_SAMPLE_SECONDS the RSS (/proc/<pid>/status VmRSS) and the
// V8 heap of each service are recorded; at the end, the live heap after a full collection.
// Fails (exit 1) when a process exceeds SOAK_MAX_RSS_MB or grows after the warm-up (see
// `verdict`). Duration: SOAK_MINUTES (default 10).
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import type { Row, SuiteResult } from "./measure.ts";
import { onBeforeStop, progress, root, startStack } from "./stack.ts";

const here = import.meta.dirname;
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 60);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 16);
const MAX_RSS_MB = Number(process.env.SOAK_MAX_RSS_MB ?? 200);
/**
 * The heap limit every service runs with: what the images' entrypoint (deploy/image/node-entrypoint.sh)
 * sets in the base manifests' 512 MiB container, a quarter of the limit (0: none, V8's default).
 */
const HEAP_MB = Number(process.env.SOAK_MAX_OLD_SPACE_MB ?? 128);
/** The young generation's semi-space limit, as the entrypoint sets it (V8 sizes it from the machine's memory otherwise: 0 keeps that). */
const SEMI_MB = Number(process.env.SOAK_MAX_SEMI_SPACE_MB ?? 8);
/** Growth rule: the last sample may exceed the reference sample (minute 3) by this much. */
const GROWTH_TOLERANCE_MB = Number(process.env.SOAK_GROWTH_TOLERANCE_MB ?? 15);
const GROWTH_TOLERANCE_RATIO = 0.1;
const REFERENCE_MINUTE = Number(process.env.SOAK_REFERENCE_MINUTE ?? 3);
const MB = 1024 * 1024;

interface Heap {
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  heapLimit: number;
}

interface Sample {
  minute: number;
  rssMb: number;
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
}

interface ProcessReport {
  name: string;
  samples: Sample[];
  maxRssMb: number;
  referenceMinute: number;
  referenceRssMb: number;
  lastRssMb: number;
  growthMb: number;
  allowedGrowthMb: number;
  /** heapUsed after a full collection: before the load, and after it. */
  liveHeapAtStartMb?: number;
  liveHeapMb?: number;
  heapLimitMb?: number;
  logMb: number;
  verdict: "ok" | "too large" | "grows";
}

const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Math.round((Number(kb[1]) / 1024) * 10) / 10;
}

let probeId = 0;
/** The child's heap figures through the preloaded heap-probe (undefined if it does not answer in 5 s). */
function heapOf(child: ChildProcess, gc = false): Promise<Heap | undefined> {
  const id = ++probeId;
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(undefined), 5_000);
    const onMessage = (message: Heap & { type?: string; id?: number }) => {
      if (message?.type === "soak:memory" && message.id === id) finish(message);
    };
    function finish(heap: Heap | undefined) {
      clearTimeout(timer);
      child.off("message", onMessage);
      resolve(heap);
    }
    child.on("message", onMessage);
    child.send({ type: "soak:memory", id, gc }, (error) => error && finish(undefined));
  });
}

// ---- the load -------------------------------------------------------------------------------

interface Counts {
  requests: number;
  byKind: Record<string, Record<string, number>>;
  failures: string[];
}

interface Target {
  gateway: string;
  key: string;
  gameId: string;
  environmentToken: string;
}

/** One client: a weighted random mix of requests, one at a time, until `stopped()`. */
async function client(target: Target, counts: Counts, stopped: () => boolean, index: number): Promise<void> {
  const run = randomBytes(3).toString("hex");
  const tickets: string[] = [];
  let session: { code: string; tickets: string[] } | undefined;
  let n = 0;
  const api = { authorization: `Bearer ${target.key}`, "content-type": "application/json" };

  const send = async (kind: string, url: string, init: RequestInit = {}): Promise<unknown> => {
    counts.requests++;
    let status: string;
    let body: unknown;
    try {
      const response = await fetch(target.gateway + url, { ...init, signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      status = String(response.status);
      if (response.ok && text) body = JSON.parse(text);
      // 401 (an unknown key) and 404/409 of the player side are expected; 5xx are not.
      if (response.status >= 500 && counts.failures.length < 20) counts.failures.push(`${kind} ${response.status} ${text.slice(0, 200)}`);
    } catch (error) {
      status = (error as Error).name === "TimeoutError" ? "timeout" : "closed";
      if (counts.failures.length < 20) counts.failures.push(`${kind} ${status} ${String(error)}`);
    }
    const byStatus = (counts.byKind[kind] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    return body;
  };
  const post = (kind: string, url: string, json: unknown, headers: Record<string, string> = api) =>
    send(kind, url, { method: "POST", headers, body: JSON.stringify(json) });
  const pick = <T>(values: T[]): T | undefined => values[Math.floor(Math.random() * values.length)];

  while (!stopped()) {
    n++;
    const player = `soak-${run}-${index}-${n % 500}`;
    const roll = Math.random() * 100;
    if (roll < 14) {
      const created = (await post("POST /tickets", "/tickets", {
        gameId: target.gameId,
        message: `Soak ${run}/${index}/${n}: the rewards of purchase ${n * 7919} never showed up in my inventory.`,
        language: "en",
        channels: ["email"],
        platform: "android",
        metadata: { player: { id: `${player}-${n}`, name: `Player ${n}`, email: `${player}-${n}@example.com` }, tags: ["bug"], fields: { level: n % 100 } },
      })) as { ticketId?: string } | undefined;
      if (created?.ticketId) {
        tickets.push(created.ticketId);
        if (tickets.length > 200) tickets.shift();
      }
    } else if (roll < 26) {
      const filter = pick(["", "&status=%5B%22new%22%5D", "&tags=%5B%22bug%22%5D"])!;
      await send("GET /tickets", `/tickets?limit=${pick([20, 100])}${filter}`, { headers: api });
    } else if (roll < 34) {
      const ticket = pick(tickets);
      if (ticket) {
        await post("POST /tickets/{id}/actions", `/tickets/${ticket}/actions`, {
          actions: [{ type: "addTags", tagNames: ["billing"] }, { type: "setFields", fields: { level: n % 120 } }, { type: "sendMessage", message: `Agent reply ${n}` }],
        });
      }
    } else if (roll < 39) {
      const ticket = pick(tickets);
      if (ticket) await send("GET /tickets/{id}/events", `/tickets/${ticket}/events`, { headers: api });
    } else if (roll < 62) {
      await send(`GET /${pick(["games", "tags", "fields", "announcements"])}`, `/${pick(["games", "tags", "fields", "announcements"])}`, { headers: api });
    } else if (roll < 64) {
      // A key nobody issued: the negative cache, one entry per key.
      await send("GET /games (unknown key)", "/games", { headers: { authorization: `Bearer ${randomBytes(24).toString("base64url")}` } });
    } else if (roll < 72 || !session) {
      const created = (await post(
        "POST /support/sessions",
        "/support/sessions",
        { token: target.environmentToken, language: "en", player: { id: player, name: `Player ${player}`, email: `${player}@example.com` }, tags: ["bug"], fields: { level: 3 } },
        { "content-type": "application/json" },
      )) as { sessionCode?: string } | undefined;
      if (created?.sessionCode) session = { code: created.sessionCode, tickets: [] };
    } else {
      const headers = { authorization: `Session ${session.code}`, "content-type": "application/json" };
      const ticket = pick(session.tickets);
      const what = Math.random();
      if (what < 0.3 || !ticket) {
        const created = (await post("POST /player-api/tickets", "/player-api/tickets", { message: `My ship ${n} vanished after the jump.` }, headers)) as { ticketId?: string } | undefined;
        if (created?.ticketId) session.tickets.push(created.ticketId);
      } else if (what < 0.55) {
        await send("GET /player-api/tickets", "/player-api/tickets", { headers });
      } else if (what < 0.8) {
        await post("POST /player-api/tickets/{id}/messages", `/player-api/tickets/${ticket}/messages`, { message: `Still gone (${n})` }, headers);
      } else {
        await send("GET /player-api/tickets/{id}/events", `/player-api/tickets/${ticket}/events`, { headers });
      }
    }
  }
}

// ---- the verdict ----------------------------------------------------------------------------

/**
 * A process fails when any sample exceeds MAX_RSS_MB, or when its last sample exceeds the
 * reference sample (the one at REFERENCE_MINUTE, or at half the run in a run shorter than twice
 * that) by more than max(GROWTH_TOLERANCE_MB, 10% of the reference): after the warm-up (JIT,
 * caches filling, pools opening) the RSS of a process without a leak stays level.
 */
function verdict(name: string, samples: Sample[], logMb: number, live?: Heap): ProcessReport {
  const last = samples[samples.length - 1]!;
  const referenceMinute = last.minute >= 2 * REFERENCE_MINUTE ? REFERENCE_MINUTE : last.minute / 2;
  const reference = samples.filter((s) => s.minute <= referenceMinute).at(-1)!;
  const maxRssMb = Math.max(...samples.map((s) => s.rssMb));
  const allowedGrowthMb = Math.round(Math.max(GROWTH_TOLERANCE_MB, reference.rssMb * GROWTH_TOLERANCE_RATIO) * 10) / 10;
  const growthMb = Math.round((last.rssMb - reference.rssMb) * 10) / 10;
  return {
    name,
    samples,
    maxRssMb,
    referenceMinute: reference.minute,
    referenceRssMb: reference.rssMb,
    lastRssMb: last.rssMb,
    growthMb,
    allowedGrowthMb,
    ...(live ? { liveHeapMb: mb(live.heapUsed), heapLimitMb: mb(live.heapLimit) } : {}),
    logMb,
    verdict: maxRssMb > MAX_RSS_MB ? "too large" : growthMb > allowedGrowthMb ? "grows" : "ok",
  };
}

export async function soakSuite(): Promise<SuiteResult> {
  if (!(MINUTES > 0) || !(SAMPLE_SECONDS > 0)) throw new Error("SOAK_MINUTES and SOAK_SAMPLE_SECONDS must be positive");
  const began = Date.now();
  const logDir = process.env.SOAK_LOG_DIR ?? path.join(here, "results", "soak-logs");
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const heapFlags = [...(HEAP_MB > 0 ? [`--max-old-space-size=${HEAP_MB}`] : []), ...(SEMI_MB > 0 ? [`--max-semi-space-size=${SEMI_MB}`] : [])];
  const execArgv = ["--import", path.join(here, "heap-probe.ts"), ...heapFlags];
  const stack = await startStack(
    {
      LOG_LEVEL: "info",
      // High enough never to refuse this load (one client address, one token): the shared
      // counters are still consumed on every public and /player-api request.
      PUBLIC_RATE_LIMIT_PER_ADDRESS: "100000000",
      PUBLIC_RATE_LIMIT_PER_TOKEN: "100000000",
      PLAYER_API_RATE_LIMIT_PER_SESSION: "100000000",
      PLAYER_API_RATE_LIMIT_PER_ADDRESS: "100000000",
    },
    { logDir, execArgv },
  );
  const tenant = await stack.applyTenant(path.join(root, "scripts/demo-tenant.json"));
  const galaxy = tenant.games.galaxy!;
  const target: Target = {
    gateway: stack.gateway,
    key: Object.values(tenant.apiKeys)[0]!,
    gameId: galaxy.id,
    environmentToken: Object.values(galaxy.environments)[0]!.token,
  };

  progress(`soak: ${MINUTES} min, ${CLIENTS} clients, a sample every ${SAMPLE_SECONDS} s, heap flags ${heapFlags.join(" ") || "none (V8 defaults)"}, logs in ${path.relative(process.cwd(), logDir)}`);
  const samples = new Map<string, Sample[]>(stack.processes.map((p) => [p.name, []]));
  const liveAtStart = new Map<string, Heap | undefined>();
  const sampleAll = async (minute: number) => {
    const line: string[] = [];
    for (const { name, child } of stack.processes) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited during the soak (${child.exitCode ?? child.signalCode})`);
      // Before the load, the sample is taken after a full collection: the live heap at the start.
      const heap = await heapOf(child, minute === 0);
      if (minute === 0) liveAtStart.set(name, heap);
      const sample: Sample = {
        minute,
        rssMb: rssMb(child.pid!),
        ...(heap ? { heapUsedMb: mb(heap.heapUsed), heapTotalMb: mb(heap.heapTotal), externalMb: mb(heap.external) } : {}),
      };
      samples.get(name)!.push(sample);
      line.push(`${name} ${sample.rssMb} MB (heap ${sample.heapUsedMb ?? "?"}/${sample.heapTotalMb ?? "?"})`);
    }
    progress(`minute ${minute}: ${line.join(", ")}`);
  };
  await sampleAll(0);

  const counts: Counts = { requests: 0, byKind: {}, failures: [] };
  const loadStart = Date.now();
  const endAt = loadStart + MINUTES * 60_000;
  let stop = false;
  onBeforeStop(() => (stop = true));
  const stopped = () => stop || Date.now() >= endAt;
  const load = Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(target, counts, stopped, i)));
  const perInterval: number[] = [];
  let lastCount = 0;
  for (let i = 1; i <= Math.round((MINUTES * 60) / SAMPLE_SECONDS); i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, loadStart + i * SAMPLE_SECONDS * 1000 - Date.now())));
    perInterval.push(counts.requests - lastCount);
    lastCount = counts.requests;
    await sampleAll(Math.round(((i * SAMPLE_SECONDS) / 60) * 100) / 100);
  }
  stop = true;
  await load;

  // The live heap: what is left after a full collection, once the load is over.
  const reports: ProcessReport[] = [];
  for (const { name, child } of stack.processes) {
    const live = await heapOf(child, true);
    const logFile = path.join(logDir, `${name}.log`);
    reports.push({ ...verdict(name, samples.get(name)!, mb(statSync(logFile).size), live), liveHeapAtStartMb: mb(liveAtStart.get(name)?.heapUsed ?? NaN) });
  }

  const minutes = samples.get("gateway")!.map((s) => s.minute);
  const table = [
    `Soak: ${MINUTES} min, ${CLIENTS} clients, ${counts.requests} requests (${Math.round(counts.requests / (MINUTES * 60))}/s), heap flags ${heapFlags.join(" ") || "none (V8 defaults)"}, LOG_LEVEL=info to files.`,
    "",
    `RSS in MB at minute:`,
    "",
    `| process | ${minutes.join(" | ")} | max | growth after the reference minute (allowed) | live heap after GC: start, end | log MB | verdict |`,
    `|---|${minutes.map(() => "---|").join("")}---|---|---|---|---|`,
    ...reports.map(
      (r) => `| ${r.name} | ${r.samples.map((s) => s.rssMb).join(" | ")} | ${r.maxRssMb} | ${r.growthMb} since ${r.referenceMinute} (${r.allowedGrowthMb}) | ${r.liveHeapAtStartMb ?? "?"}, ${r.liveHeapMb ?? "?"} (limit ${r.heapLimitMb ?? "?"}) | ${r.logMb} | ${r.verdict} |`,
    ),
    "",
    `Heap used (MB) at minute:`,
    "",
    `| process | ${minutes.join(" | ")} |`,
    `|---|${minutes.map(() => "---|").join("")}`,
    ...reports.map((r) => `| ${r.name} | ${r.samples.map((s) => s.heapUsedMb ?? "?").join(" | ")} |`),
    "",
    `Requests per interval: ${perInterval.join(", ")}`,
    `Answers: ${JSON.stringify(counts.byKind)}`,
    ...(counts.failures.length ? [`First failures: ${counts.failures.join(" / ")}`] : []),
  ].join("\n");

  const failed = reports.filter((r) => r.verdict !== "ok");
  const rows: Row[] = [];
  progress(`soak done in ${Math.round((Date.now() - began) / 1000)} s`);
  const result: SuiteResult = {
    rows,
    table,
    details: {
      minutes: MINUTES,
      sampleSeconds: SAMPLE_SECONDS,
      clients: CLIENTS,
      heapFlags,
      rule: { maxRssMb: MAX_RSS_MB, referenceMinute: REFERENCE_MINUTE, toleranceMb: GROWTH_TOLERANCE_MB, toleranceRatio: GROWTH_TOLERANCE_RATIO },
      requests: counts.requests,
      requestsPerInterval: perInterval,
      answers: counts.byKind,
      failures: counts.failures,
      processes: reports,
      passed: failed.length === 0,
    },
  };
  if (failed.length > 0) {
    // run.ts still prints and writes the report it carries, then exits 1.
    throw Object.assign(new Error(`soak failed: ${failed.map((r) => `${r.name} ${r.verdict} (max ${r.maxRssMb} MB, growth ${r.growthMb} MB)`).join(", ")}`), { result });
  }
  return result;
}
