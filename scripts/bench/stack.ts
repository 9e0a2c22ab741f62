// Child processes of a benchmark run, and the whole stack (four services and the gateway) in a
// database and NATS prefix of its own. Everything started here is stopped, and the bench
// database dropped, by `cleanup()`: at the end of a suite and on Ctrl-C / SIGTERM.
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createTestServiceIdentities, deleteStreamsWithPrefix, freePort, resolveS3, startSmtpReceiver } from "@support/testkit";

export const root = path.resolve(import.meta.dirname, "../..");

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
const beforeStop: (() => void)[] = [];
let cleaning: Promise<void> | undefined;
const startedAt = Date.now();

/** A progress line on stderr, with the seconds since the run started. */
export function progress(message: string): void {
  console.error(`[bench +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${message}`);
}

// The tests' free ports: drawn below the kernel's ephemeral range, so that no outgoing connection
// takes one between the draw and the server's bind (the stack migrates for seconds in between).
export { freePort };

export interface StartOptions {
  /** Stdout and stderr (the JSON logs) appended to this file instead of forwarded to stderr. */
  logFile?: string;
  /** Node options of the child (e.g. a heap limit, a preload). */
  execArgv?: string[];
  /** The process's name in profiles and reports (default: the script's file name). */
  name?: string;
}

let runDir: string | undefined;

/**
 * The directory of this run (results JSON, service logs, CPU profiles), created on first use:
 * `scripts/bench/results/runs/<UTC time>-<suite>/`.
 */
export function runDirectory(suite = "bench"): string {
  if (runDir === undefined) {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    runDir = path.join(import.meta.dirname, "results", "runs", `${stamp}-${suite}`);
    mkdirSync(runDir, { recursive: true });
  }
  return runDir;
}

/** BENCH_CPU_PROF=1: every server child writes a V8 CPU profile into the run's `cpu/` on exit. */
export const cpuProfiling = process.env.BENCH_CPU_PROF === "1";

function profileArgs(name: string): string[] {
  if (!cpuProfiling) return [];
  const dir = path.join(runDirectory(), "cpu");
  mkdirSync(dir, { recursive: true });
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`];
}

/** The environment of a child: tracing stays off (no OTEL_* from the caller's shell). */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  return { ...inherited, LOG_LEVEL: "warn", ...env };
}

/** A long-running child (a server); stopped by cleanup(). */
export function start(script: string, env: Record<string, string>, quiet = true, options: StartOptions = {}): ChildProcess {
  const log = options.logFile === undefined ? undefined : openSync(options.logFile, "a");
  const name = options.name ?? path.basename(script, ".ts");
  const child = fork(script, [], {
    cwd: root,
    env: childEnv(env),
    execArgv: [...(options.execArgv ?? []), ...profileArgs(name)],
    stdio: log !== undefined ? ["ignore", log, log, "ipc"] : quiet ? ["ignore", "ignore", "pipe", "ipc"] : ["ignore", "inherit", "pipe", "ipc"],
  });
  if (log !== undefined) closeSync(log);
  // Forwarded until cleanup starts: on Ctrl-C the services (which get the signal too) would
  // otherwise log every request still in flight.
  child.stderr?.on("data", (chunk: Buffer) => {
    if (!cleaning) process.stderr.write(chunk);
  });
  children.push(child);
  progress(`started ${path.relative(root, script)} (pid ${child.pid})`);
  child.on("exit", (code, signal) => {
    if (!cleaning) progress(`${path.relative(root, script)} exited early (code ${code}, signal ${signal})`);
  });
  return child;
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer in time`);
}

/** A child that runs to completion (migrations, the admin CLI); resolves with its stdout. `stdin` is written to it. */
export async function runProcess(script: string, args: string[], env: Record<string, string>, stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { cwd: root, env: childEnv({ ...env, LOG_LEVEL: "warn" }), stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "inherit", "ipc"] });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}`))));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** The last started (the gateway, in front) first, so it does not log every request it can no longer forward. */
async function stopChildren(): Promise<void> {
  const [last, ...others] = [...children].reverse();
  if (last) await stopChild(last);
  await Promise.all(others.map(stopChild));
}

/** True once cleanup() has begun (connections to the bench database are about to be cut). */
export function isCleaningUp(): boolean {
  return cleaning !== undefined;
}

/** Runs first when cleaning up, before the children stop (e.g. stops a load generator). */
export function onBeforeStop(step: () => void): void {
  beforeStop.push(step);
}

/** Stops every child and runs the registered cleanups (dropping bench databases); runs once. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of beforeStop) step();
    await stopChildren();
    for (const step of cleanups.reverse()) {
      await step().catch((error: unknown) => console.error("cleanup failed:", error));
    }
  })();
  return cleaning;
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  process.on(signal, () => {
    progress(`${signal}: stopping the stack and dropping the bench database`);
    void cleanup().finally(() => process.exit(code));
  });
}

export interface TenantResult {
  companyId: string;
  apiKeys: Record<string, string>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }> }>;
}

export interface Stack {
  /** The gateway's base URL. */
  gateway: string;
  /** The bench database (DATABASE_URL of every service) and the server's admin database. */
  databaseUrl: string;
  adminUrl: string;
  /** Environment shared by every service and admin command of this stack. */
  env: Record<string, string>;
  /** `pnpm admin apply <file>` (tools/admin) against this stack's content and players services. */
  applyTenant(file: string): Promise<TenantResult>;
  /** Any admin command (`users set-password --email …` with the password on `stdin`); resolves with its output. */
  admin(args: string[], stdin?: string): Promise<string>;
  /** The service processes, the gateway last. */
  processes: { name: string; child: ChildProcess }[];
  /** Each process's metrics listener (GET /metrics), by process name. */
  metricsPorts: Record<string, number>;
  /** The directory of the service logs. */
  logDir: string;
}

export interface StackOptions {
  /** Where each service's logs go: `<logDir>/<service>.log` (JSON lines); default the run directory's `logs/`. */
  logDir?: string;
  /** Node options of every service process. */
  execArgv?: string[];
  /** An existing database (one a run kept with BENCH_KEEP_DATABASE=1) instead of a new one; left as it is at the end. */
  database?: string;
}

/**
 * Migrates and starts content, tickets, media, players, webhooks and the gateway as child processes,
 * wired to each other on free ports, in a new database `bench_<random>` and NATS prefix.
 * `env` is added to every service's environment. The database and the run's streams are
 * removed by cleanup() (the database kept with BENCH_KEEP_DATABASE=1).
 */
export async function startStack(env: Record<string, string> = {}, options: StackOptions = {}): Promise<Stack> {
  const run = randomBytes(4).toString("hex");
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = options.database ?? `bench_${run}`;
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`not a database name of a bench: ${database}`);
  const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/${database}`);
  cleanups.push(async () => {
    // BENCH_KEEP_DATABASE=1 leaves the seeded database for reading its plans by hand afterwards.
    if (options.database !== undefined) {
      progress(`left database ${database} as it is (a reused database)`);
      return;
    }
    if (process.env.BENCH_KEEP_DATABASE === "1") {
      progress(`kept database ${database} (BENCH_KEEP_DATABASE=1): drop it with \`dropdb ${database}\``);
      return;
    }
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${database} with (force)`);
      progress(`dropped database ${database}`);
    } finally {
      await admin.end();
    }
  });

  // The services create their streams under the run's prefix; a bench leaves none behind.
  const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
  const natsPrefix = `bench_${run}_`;
  cleanups.push(async () => {
    await deleteStreamsWithPrefix(natsUrl, natsPrefix);
    progress(`deleted the streams of ${natsPrefix}`);
  });

  // Media needs an S3 endpoint: S3_ENDPOINT if set, else an s3rver in this process (temp dir).
  const s3 = await resolveS3();
  cleanups.push(() => s3.stop());
  // The email service sends agents' replies on email tickets to an SMTP receiver in this process
  // (a relay that accepts everything at once: the bench measures the platform, not a mail server).
  const smtp = await startSmtpReceiver({ keep: false });
  cleanups.push(() => smtp.stop());
  const services = ["content", "tickets", "media", "players", "webhooks", "email"] as const;
  const ports = { content: await freePort(), tickets: await freePort(), media: await freePort(), players: await freePort(), webhooks: await freePort(), email: await freePort(), gateway: await freePort() };
  const metricsPorts = { content: await freePort(), tickets: await freePort(), media: await freePort(), players: await freePort(), webhooks: await freePort(), email: await freePort(), gateway: await freePort() };
  const logDir = options.logDir ?? path.join(runDirectory(), "logs");
  mkdirSync(logDir, { recursive: true });
  const common = {
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: natsPrefix,
    HOST: "127.0.0.1",
    CONTENT_URL: `http://127.0.0.1:${ports.content}`,
    TICKETS_URL: `http://127.0.0.1:${ports.tickets}`,
    MEDIA_URL: `http://127.0.0.1:${ports.media}`,
    PLAYERS_URL: `http://127.0.0.1:${ports.players}`,
    WEBHOOKS_URL: `http://127.0.0.1:${ports.webhooks}`,
    EMAIL_URL: `http://127.0.0.1:${ports.email}`,
    SMTP_URL: smtp.url,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
    // As deployed: JSON logs at info (into files, as a container's stdout goes to a collector),
    // metrics on (each process on a port of its own, scraped by the suites), tracing off.
    LOG_LEVEL: "info",
    // The API-key rate limits stay on (every request is counted, synced and gets its headers)
    // but far above what a run sends: the benches measure their cost, not their refusals.
    API_RATE_LIMIT_PER_MINUTE: "1000000000",
    ...env,
  };
  // Content, players and webhooks serve the admin RPCs the admin tool calls, with this run's token.
  const adminToken = randomBytes(24).toString("base64url");
  // Each process signs its calls with its own key; every service trusts them all (as deployed).
  const identities = createTestServiceIdentities();
  progress(`starting the stack in database ${database}`);
  const processes: Stack["processes"] = [];
  const startOptions = (service: string): StartOptions => ({
    name: service,
    logFile: path.join(logDir, `${service}.log`),
    ...(options.execArgv !== undefined ? { execArgv: options.execArgv } : {}),
  });
  for (const service of services) {
    await runProcess(path.join(root, `services/${service}/src/migrate.ts`), [], common);
    const admin: Record<string, string> = service === "content" || service === "players" || service === "webhooks" || service === "tickets" ? { ADMIN_TOKEN: adminToken } : {};
    const child = start(path.join(root, `services/${service}/src/main.ts`), { ...common, ...admin, ...identities.env(service), PORT: String(ports[service]), METRICS_PORT: String(metricsPorts[service]) }, true, startOptions(service));
    processes.push({ name: service, child });
  }
  processes.push({ name: "gateway", child: start(path.join(root, "services/gateway/src/main.ts"), { ...common, ...identities.env("gateway"), PORT: String(ports.gateway), METRICS_PORT: String(metricsPorts.gateway) }, true, startOptions("gateway")) });
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  await waitForHttp(`${gateway}/healthz`, 60_000);
  await waitForHttp(`${common.CONTENT_URL}/healthz`, 60_000);
  await waitForHttp(`${common.PLAYERS_URL}/healthz`, 60_000);
  progress(`stack up, gateway ${gateway}`);

  return {
    gateway,
    databaseUrl,
    adminUrl,
    env: common,
    processes,
    metricsPorts,
    logDir,
    applyTenant: async (file) =>
      JSON.parse(await runProcess(path.join(root, "tools/admin/src/cli.ts"), ["apply", file], { ...common, ADMIN_TOKEN: adminToken, ...identities.env("admin") })) as TenantResult,
    admin: (args, stdin) => runProcess(path.join(root, "tools/admin/src/cli.ts"), args, { ...common, ADMIN_TOKEN: adminToken, ...identities.env("admin") }, stdin),
  };
}
