// Starts the whole system on this machine: Postgres, NATS and S3 (reused when already running,
// otherwise started from local binaries with data under .data/), the migrations, the six
// services and a demo tenant. A service that crashes is started again with backoff; Ctrl-C
// stops the services, then the infrastructure it started.
// Run through pnpm (Node 24): `pnpm run up` (NOT `pnpm up`, which is pnpm's own update command).
// `pnpm run up -- --reset` deletes the local stack's data instead (see docs/local-stack.md).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import {
  LOCAL_NATS_PORT,
  LOCAL_POSTGRES_PORT,
  S3RVER_CREDENTIALS,
  allowBrowserOrigins,
  databaseIdentity,
  dropDatabase,
  ensureDatabase,
  findPostgresBinDir,
  freePort,
  listStreams,
  natsJetStreamAnswers,
  portIsFree,
  postgresAnswers,
  postgresUrl,
  removePostgresDataDir,
  startNatsServer,
  startPostgresServer,
  startS3rver,
  startSmtpReceiver,
  withDatabase,
} from "@support/testkit";
import type { IdentityName } from "@support/rpc";
import { seedDemoTickets } from "./demo-tickets.ts";
import { TRUST_FILE, initIdentities, keyFile } from "./service-identity.ts";

const ROOT = resolve(import.meta.dirname, "..");
const DATA = join(ROOT, ".data");
// The private Postgres' data: this directory, or a symbolic link to its relocated directory.
const PG_DATA = join(DATA, "postgres");
const DEMO_TENANT_FILE = join(ROOT, "scripts", "demo-tenant.json");
const DEMO_TENANT_RECORD = join(DATA, "demo-tenant.json");
// The admin token of the local stack: content, players, tickets and webhooks get it as ADMIN_TOKEN, and the admin
// tool (`pnpm admin`) reads it from this file when ADMIN_TOKEN is unset.
const ADMIN_TOKEN_FILE = join(DATA, "admin-token");
const ADMIN_CLI = join(ROOT, "tools", "admin", "src", "cli.ts");
const WEBHOOK_SECRETS_KEY_FILE = join(DATA, "webhook-secrets-key");
// The stack's service identities: a private key per process and the trust of their public keys
// (scripts/service-identity.ts), made once and kept until `--reset`. Each service gets its own key
// file and the trust; the admin tool reads admin.key from here by default.
const IDENTITY_DIR = join(DATA, "service-identity");
// The mails the stack sends (players' email codes): without SMTP_URL, a local SMTP receiver
// takes them, keeps each as an .eml file here and prints its recipient and subject.
const MAIL_DIR = join(DATA, "mail");
const DATABASE = "support";
const BUCKET = "support-attachments";
const S3_PORT = 4568;
const HEALTH_TIMEOUT_MS = Number(process.env.UP_HEALTH_TIMEOUT_S ?? 90) * 1000;
const STOP_TIMEOUT_MS = 10_000;

interface Service {
  name: string;
  port: number;
  /** Its metrics listener (GET /metrics); every process has its own. */
  metricsPort: number;
  /** Env var under which the gateway (and the admin tool) finds this service. */
  urlVar?: string;
  /** Serves admin RPCs: gets ADMIN_TOKEN. */
  admin?: boolean;
  /** Its own settings for the local stack. */
  env?: NodeJS.ProcessEnv;
}

const GATEWAY_PORT = Number(process.env.PORT ?? 8080);
// Backends first: the gateway is started last and its /healthz is what we wait for.
const SERVICES: Service[] = [
  // Agents' invitation and reset links lead to the support application this gateway serves.
  { name: "content", port: 50051, metricsPort: 9465, urlVar: "CONTENT_URL", admin: true, env: { SUPPORT_APP_URL: supportAppUrl() } },
  { name: "tickets", port: 50052, metricsPort: 9466, urlVar: "TICKETS_URL", admin: true },
  { name: "media", port: 50053, metricsPort: 9467, urlVar: "MEDIA_URL" },
  { name: "players", port: 50054, metricsPort: 9468, urlVar: "PLAYERS_URL", admin: true },
  // Local receivers are plain http on this machine: allowed here only, never in production.
  { name: "webhooks", port: 50055, metricsPort: 9469, urlVar: "WEBHOOKS_URL", admin: true, env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } },
  // Agents' replies on email tickets go to the stack's mailbox (or SMTP_URL); players' answers
  // come back by SMTP to 127.0.0.1:2525 (curl or any mail client, docs/email.md "Locally").
  { name: "email", port: 50056, metricsPort: 9470, urlVar: "EMAIL_URL", env: { EMAIL_REPLY_ADDRESS: "support@localhost", EMAIL_SMTP_PORT: "2525" } },
  // The support application is served by this gateway: agents sign in from its own origin.
  { name: "gateway", port: GATEWAY_PORT, metricsPort: 9464, env: { SUPPORT_APP_URL: supportAppUrl() } },
];

// ---- output -------------------------------------------------------------------------------

const COLOR = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const COLORS: Record<string, number> = { up: 1, gateway: 36, content: 32, tickets: 33, media: 35, players: 34, webhooks: 31, email: 95 };
const WIDTH = Math.max(...SERVICES.map((s) => s.name.length), "admin".length) + 2;

function paint(code: number, text: string): string {
  return COLOR ? `\x1b[${code}m${text}\x1b[0m` : text;
}

function tag(name: string): string {
  return paint(COLORS[name] ?? 90, `[${name}]`.padEnd(WIDTH));
}

function log(message: string): void {
  process.stdout.write(`${tag("up")} ${message}\n`);
}

function pipeLines(name: string, from: Readable | null, to: Writable): void {
  if (!from) return;
  createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => to.write(`${tag(name)} ${line}\n`));
}

// ---- lifecycle ----------------------------------------------------------------------------

interface Child {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

const children = new Set<Child>();
const infraStops: Array<{ name: string; stop: () => Promise<void> }> = [];
let stopping = false;

function isRunning(c: Child): boolean {
  return c.child.exitCode === null && c.child.signalCode === null;
}

function spawnChild(name: string, args: string[], env: NodeJS.ProcessEnv, captureStdout = false, stdin?: string): Child {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    // Own process group: a terminal's Ctrl-C reaches only us, and we stop children in order.
    detached: true,
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  if (!captureStdout) pipeLines(name, child.stdout, process.stdout);
  pipeLines(name, child.stderr, process.stderr);
  const entry: Child = {
    name,
    child,
    exited: new Promise((done) => {
      child.once("exit", () => done());
      child.once("error", () => done());
    }),
  };
  children.add(entry);
  void entry.exited.then(() => children.delete(entry));
  return entry;
}

/** Runs a one-off Node script (migration, admin command); resolves with its stdout. */
async function runTask(name: string, args: string[], env: NodeJS.ProcessEnv, captureStdout = false, stdin?: string): Promise<string> {
  const task = spawnChild(name, args, env, captureStdout, stdin);
  let stdout = "";
  if (captureStdout) task.child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  await task.exited;
  const { exitCode, signalCode } = task.child;
  if (stopping) throw new Stopping();
  if (exitCode !== 0) throw new Error(`${name} (${args.map((a) => relative(ROOT, a) || a).join(" ")}) failed with ${exitCode ?? signalCode}`);
  return stdout;
}

class Stopping extends Error {}

async function stopChildren(): Promise<void> {
  const live = [...children].filter(isRunning);
  for (const c of live) c.child.kill("SIGTERM");
  const timer = setTimeout(() => {
    for (const c of live.filter(isRunning)) {
      log(`${c.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s: killing it`);
      c.child.kill("SIGKILL");
    }
  }, STOP_TIMEOUT_MS);
  await Promise.all(live.map((c) => c.exited));
  clearTimeout(timer);
}

async function stopInfra(): Promise<void> {
  for (const { name, stop } of infraStops.reverse()) {
    try {
      await stop();
      log(`${name} stopped`);
    } catch (error) {
      log(`could not stop ${name}: ${(error as Error).message}`);
    }
  }
  infraStops.length = 0;
}

async function shutdown(exitCode: number, reason?: string): Promise<never> {
  if (stopping) {
    // A second Ctrl-C: stop waiting for the services.
    for (const c of children) if (isRunning(c)) c.child.kill("SIGKILL");
    return new Promise<never>(() => {});
  }
  stopping = true;
  if (reason) log(reason);
  if ([...children].some(isRunning)) log("stopping services…");
  await stopChildren();
  await stopInfra();
  process.exit(exitCode);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => void shutdown(signal === "SIGINT" ? 130 : 143, stopping ? undefined : `${signal}: shutting down`));
}
// Last resort when we die anyway (an uncaught error): leave no detached service behind.
process.on("exit", () => {
  for (const c of children) if (isRunning(c)) c.child.kill("SIGKILL");
});

// ---- infrastructure -----------------------------------------------------------------------

interface Infra {
  adminUrl: string;
  natsUrl: string;
  s3Endpoint: string;
}

async function startInfra(): Promise<Infra> {
  const localPg = postgresUrl("127.0.0.1", LOCAL_POSTGRES_PORT);
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    // A server of the caller's own (e.g. one to restart while the stack runs): its `support`
    // database is created there when missing.
    adminUrl = process.env.DATABASE_URL;
    if (!(await postgresAnswers(adminUrl))) throw new Error(`DATABASE_URL: no Postgres answers at ${new URL(adminUrl).host}`);
    log(`Postgres: using DATABASE_URL (${new URL(adminUrl).host})`);
  } else if (await postgresAnswers(localPg)) {
    adminUrl = localPg;
    log(`Postgres: reusing the server on 127.0.0.1:${LOCAL_POSTGRES_PORT}`);
  } else {
    const port = (await portIsFree(LOCAL_POSTGRES_PORT)) ? LOCAL_POSTGRES_PORT : await freePort();
    log(`Postgres: starting ${findPostgresBinDir() ?? "(no binaries found)"}/postgres on 127.0.0.1:${port}, data in .data/postgres`);
    // As root, Postgres runs as the `postgres` OS user; when that user cannot reach the checkout
    // (a mode-700 parent), the cluster lives under /var/lib/postgresql/player-support, linked from .data/postgres.
    const server = await startPostgresServer({ dataDir: PG_DATA, port, durable: true });
    infraStops.push({ name: "Postgres", stop: server.stop });
    if (server.dataDir !== PG_DATA) log(`Postgres: the checkout is closed to its OS user: data in ${server.dataDir} (linked from .data/postgres)`);
    adminUrl = server.adminUrl;
  }

  const localNats = `nats://127.0.0.1:${LOCAL_NATS_PORT}`;
  let natsUrl: string;
  if (process.env.NATS_URL) {
    natsUrl = process.env.NATS_URL;
    if (!(await natsJetStreamAnswers(natsUrl))) throw new Error(`NATS_URL: no NATS server with JetStream answers at ${natsUrl}`);
    log(`NATS: using NATS_URL (${natsUrl})`);
  } else if (await natsJetStreamAnswers(localNats)) {
    natsUrl = localNats;
    log(`NATS: reusing the JetStream server on 127.0.0.1:${LOCAL_NATS_PORT}`);
  } else {
    const port = (await portIsFree(LOCAL_NATS_PORT)) ? LOCAL_NATS_PORT : await freePort();
    log(`NATS: starting nats-server -js on 127.0.0.1:${port}, data in .data/nats`);
    const server = await startNatsServer({ storeDir: join(DATA, "nats"), port, detached: true });
    infraStops.push({ name: "NATS", stop: server.stop });
    natsUrl = server.url;
  }

  const s3Port = (await portIsFree(S3_PORT)) ? S3_PORT : 0;
  const s3 = await startS3rver({ directory: join(DATA, "s3"), port: s3Port, bucket: BUCKET });
  infraStops.push({ name: "S3 (s3rver)", stop: s3.stop });
  log(`S3: s3rver on ${s3.endpoint}, bucket ${BUCKET}, data in .data/s3`);
  // The web support page uploads and downloads attachments straight from the bucket.
  const pageOrigin = new URL(webSupportUrl()).origin;
  await allowBrowserOrigins(s3, [...new Set([pageOrigin, pageOrigin.replace("//127.0.0.1:", "//localhost:")])]);

  if (await ensureDatabase(adminUrl, DATABASE)) log(`Postgres: created database ${DATABASE}`);
  return { adminUrl, natsUrl, s3Endpoint: s3.endpoint };
}

/** The web support page: the gateway serves it at /support/ unless WEB_SUPPORT_URL points elsewhere. */
/** The support application (the agents' console the gateway serves at /app/): invitation links and tickets' urls lead there. */
function supportAppUrl(): string {
  return process.env.SUPPORT_APP_URL ?? `http://127.0.0.1:${GATEWAY_PORT}/app`;
}

function webSupportUrl(): string {
  return process.env.WEB_SUPPORT_URL ?? `http://127.0.0.1:${GATEWAY_PORT}/support/`;
}

function serviceEnv(infra: Infra, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: withDatabase(infra.adminUrl, DATABASE),
    NATS_URL: infra.natsUrl,
    S3_ENDPOINT: infra.s3Endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    LOG_PRETTY: process.env.LOG_PRETTY ?? (COLOR ? "true" : "false"),
    SUPPORT_APP_URL: supportAppUrl(),
    WEB_SUPPORT_URL: webSupportUrl(),
    // The page's CSP lets it reach the bucket (pre-signed uploads and downloads).
    WEB_SUPPORT_CONNECT_SRC: process.env.WEB_SUPPORT_CONNECT_SRC ?? new URL(infra.s3Endpoint).origin,
  };
  for (const s of SERVICES) if (s.urlVar) env[s.urlVar] = `http://127.0.0.1:${s.port}`;
  env.WEBHOOK_SECRETS_KEY = process.env.WEBHOOK_SECRETS_KEY ?? webhookSecretsKey();
  return env;
}

// ---- services -----------------------------------------------------------------------------

function entry(service: string, file: string): string {
  return join(ROOT, "services", service, "src", file);
}

async function runMigrations(infra: Infra): Promise<void> {
  for (const s of SERVICES) {
    const script = entry(s.name, "migrate.ts");
    if (!existsSync(script)) continue;
    await runTask(s.name, [script], serviceEnv(infra, s.port));
  }
  log("migrations applied");
}

// A service that exits on its own (a crash) is started again after a delay that doubles with
// each quick crash (1 s, 2 s, 4 s ... up to 30 s) and starts over once it has run for a minute;
// the rest of the stack keeps running. Only Ctrl-C (or a failed start-up step) stops everything.
const RESTART_MIN_MS = 1000;
const RESTART_MAX_MS = 30_000;
const STABLE_AFTER_MS = 60_000;

function superviseService(s: Service, main: string, env: NodeJS.ProcessEnv, crashes = 0): void {
  const startedAt = Date.now();
  const c = spawnChild(s.name, [main], env);
  c.child.once("exit", (code, signal) => {
    if (stopping) return;
    const quickCrashes = Date.now() - startedAt >= STABLE_AFTER_MS ? 0 : crashes;
    const delay = Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** quickCrashes);
    log(paint(31, `${s.name} exited (${code ?? signal}): starting it again in ${delay / 1000} s`));
    setTimeout(() => {
      if (!stopping) superviseService(s, main, env, quickCrashes + 1);
    }, delay);
  });
}

/**
 * The key that encrypts webhook signing secrets at rest in the local stack: 32 random bytes
 * (base64), made once (0600) and kept in .data/webhook-secrets-key until `make reset`, so that
 * subscriptions keep working across restarts.
 */
function webhookSecretsKey(): string {
  if (!existsSync(WEBHOOK_SECRETS_KEY_FILE)) {
    mkdirSync(DATA, { recursive: true });
    writeFileSync(WEBHOOK_SECRETS_KEY_FILE, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  }
  return readFileSync(WEBHOOK_SECRETS_KEY_FILE, "utf8").trim();
}

/** The stack's admin token: made once (0600) and kept in .data/admin-token until `make reset`. */
function adminToken(): string {
  if (existsSync(ADMIN_TOKEN_FILE)) {
    const token = readFileSync(ADMIN_TOKEN_FILE, "utf8").trim();
    if (token) return token;
  }
  const token = randomBytes(32).toString("base64url");
  mkdirSync(DATA, { recursive: true });
  writeFileSync(ADMIN_TOKEN_FILE, `${token}\n`, { mode: 0o600 });
  log("admin token written to .data/admin-token");
  return token;
}

/** Mails printed one by one per second at most; more than that (the demo data's replies) are counted. */
const MAILS_PRINTED_PER_SECOND = 3;

/**
 * Where the services send mail (players' email codes, agents' invitations, the replies and
 * surveys of email tickets): SMTP_URL when set, else a receiver of the stack's own (never relays).
 */
async function startMailbox(): Promise<{ smtpUrl: string; local: boolean }> {
  if (process.env.SMTP_URL) return { smtpUrl: process.env.SMTP_URL, local: false };
  mkdirSync(MAIL_DIR, { recursive: true });
  let pending: string[] = [];
  let flushing: NodeJS.Timeout | undefined;
  const flush = () => {
    flushing = undefined;
    if (pending.length <= MAILS_PRINTED_PER_SECOND) for (const line of pending) log(line);
    else log(`${pending.length} mails (the last: ${pending.at(-1)})`);
    pending = [];
  };
  const receiver = await startSmtpReceiver({
    onMail(mail) {
      const file = join(MAIL_DIR, `${mail.receivedAt.toISOString().replace(/[:.]/g, "-")}-${mail.to.join("_").replace(/[^\w@.-]/g, "_")}.eml`);
      writeFileSync(file, mail.raw);
      pending.push(`mail to ${mail.to.join(", ")}: ${mail.subject}   (${relative(ROOT, file)})`);
      flushing ??= setTimeout(flush, 1000).unref();
    },
  });
  log(`mail: a local SMTP receiver at ${receiver.url}, mails kept in .data/mail/`);
  return { smtpUrl: receiver.url, local: true };
}

function startServices(infra: Infra, token: string, smtpUrl: string): Service[] {
  const started: Service[] = [];
  for (const s of SERVICES) {
    const main = entry(s.name, "main.ts");
    if (!existsSync(main)) {
      log(paint(33, `services/${s.name}/src/main.ts does not exist: ${s.name} is not started`));
      continue;
    }
    const env = {
      ...serviceEnv(infra, s.port),
      METRICS_PORT: String(s.metricsPort),
      ...(s.admin ? { ADMIN_TOKEN: token } : {}),
      SERVICE_IDENTITY_KEY_FILE: keyFile(IDENTITY_DIR, s.name as IdentityName),
      SERVICE_IDENTITY_TRUST_FILE: join(IDENTITY_DIR, TRUST_FILE),
      ...(s.name === "players" || s.name === "content" || s.name === "email" ? { SMTP_URL: smtpUrl } : {}),
      ...s.env,
    };
    superviseService(s, main, env);
    started.push(s);
  }
  return started;
}

async function waitHealthy(name: string, port: number): Promise<void> {
  const url = `http://127.0.0.1:${port}/healthz`;
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (stopping) throw new Stopping();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${name} did not answer 200 on ${url} within ${HEALTH_TIMEOUT_MS / 1000} s`);
}

// ---- demo tenant --------------------------------------------------------------------------

interface TenantResult {
  companyId: string;
  /** null when an earlier run created the key (the admin tool prints a secret once). */
  apiKeys: Record<string, string | null>;
  games?: unknown;
  users?: unknown;
}

interface TenantRecord {
  /** databaseIdentity() of the database the tenant was applied to. */
  database: string;
  appliedAt: string;
  tenant: TenantResult;
  /** The demo admin's sign-in to the support application (set by `pnpm admin users set-password`). */
  admin?: { email: string; password: string };
  /** The demo inbox seeded right after the tenant was applied (scripts/demo-tickets.ts). */
  seeded?: { tickets: number; actions: number; ms: number };
}

/** The demo tenant's admin (scripts/demo-tenant.json). */
const DEMO_ADMIN_EMAIL = "admin@demo.example";

function parseTenant(stdout: string): TenantResult {
  const text = stdout.trim();
  const json = text.startsWith("{") ? text : text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  const parsed = JSON.parse(json) as TenantResult;
  if (!parsed || typeof parsed.apiKeys !== "object") throw new Error("the admin tool printed no apiKeys");
  return parsed;
}

/**
 * Applies scripts/demo-tenant.json with the admin tool once the services answer, once per
 * database; later starts reuse the saved result (it holds the API key secret, printed once).
 */
async function demoTenant(infra: Infra, token: string): Promise<TenantRecord | undefined> {
  const identity = await databaseIdentity(infra.adminUrl, DATABASE);
  const env = { ...serviceEnv(infra, 0), ADMIN_TOKEN: token, SERVICE_IDENTITY_KEY_FILE: keyFile(IDENTITY_DIR, "admin") };
  if (existsSync(DEMO_TENANT_RECORD)) {
    const record = JSON.parse(readFileSync(DEMO_TENANT_RECORD, "utf8")) as TenantRecord;
    if (record.database === identity) return record.admin ? record : withDemoAdminPassword(record, env);
    log("the demo tenant on record belongs to another database: applying it again");
  }
  if (!existsSync(ADMIN_CLI)) {
    log(paint(33, "tools/admin/src/cli.ts does not exist: no demo tenant"));
    return undefined;
  }
  log("applying the demo tenant (scripts/demo-tenant.json)");
  const stdout = await runTask("admin", [ADMIN_CLI, "apply", DEMO_TENANT_FILE], env, true);
  const record: TenantRecord = { database: identity ?? "", appliedAt: new Date().toISOString(), tenant: parseTenant(stdout) };
  return withDemoAdminPassword(await withDemoInbox(record), env);
}

/**
 * Seeds the demo company's inbox through the public API (DEMO_TICKETS tickets, default 300; 0:
 * none) the first time the tenant is applied, so that the support application shows a working
 * inbox. A failure is reported and leaves the stack running with what was created.
 */
async function withDemoInbox(record: TenantRecord): Promise<TenantRecord> {
  const count = Number(process.env.DEMO_TICKETS ?? 300);
  const apiKey = Object.values(record.tenant.apiKeys).find((key): key is string => typeof key === "string");
  if (!Number.isInteger(count) || count <= 0 || !apiKey) return record;
  const file = JSON.parse(readFileSync(DEMO_TENANT_FILE, "utf8")) as { games: { ref: string; languages: string[] }[]; users: { ref: string; role?: string; games?: string[] }[] };
  const games = record.tenant.games as Record<string, { id: string }>;
  const users = record.tenant.users as Record<string, string>;
  log(`seeding the demo inbox: ${count} tickets through the API (DEMO_TICKETS=0 skips it)`);
  try {
    const seeded = await seedDemoTickets(
      {
        gateway: `http://127.0.0.1:${GATEWAY_PORT}`,
        apiKey,
        games: file.games.map((game) => ({ ref: game.ref, id: games[game.ref]!.id, languages: game.languages })),
        agents: file.users.filter((user) => user.role === "agent" && users[user.ref]).map((user) => ({ id: users[user.ref]!, games: user.games ?? [] })),
      },
      { count },
    );
    log(`demo inbox: ${seeded.tickets} tickets, ${seeded.actions} agent actions in ${(seeded.ms / 1000).toFixed(1)} s`);
    return { ...record, seeded };
  } catch (error) {
    log(paint(33, `the demo inbox could not be seeded completely: ${(error as Error).message}`));
    return record;
  }
}

/** Gives the demo admin a random password (kept beside the API key: both are this machine's only) and saves the record. */
async function withDemoAdminPassword(record: TenantRecord, env: NodeJS.ProcessEnv): Promise<TenantRecord> {
  const password = randomBytes(18).toString("base64url");
  await runTask("admin", [ADMIN_CLI, "users", "set-password", "--email", DEMO_ADMIN_EMAIL], env, true, `${password}\n`);
  const saved = { ...record, admin: { email: DEMO_ADMIN_EMAIL, password } };
  writeFileSync(DEMO_TENANT_RECORD, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}

/**
 * A link that opens the web support page for the demo tenant's player: the public session
 * redirect of the demo game's first environment, which answers with the page and a new `sid`.
 */
function webSupportLink(record: TenantRecord | undefined, base: string): string | undefined {
  const games = (record?.tenant.games ?? {}) as Record<string, { environments?: Record<string, { token?: string }> }>;
  const token = Object.values(games)
    .flatMap((game) => Object.values(game.environments ?? {}))
    .find((environment) => environment.token)?.token;
  if (!token) return undefined;
  const query = new URLSearchParams({ token, "player.id": "demo-player", "player.name": "Demo Player", "player.email": "demo-player@example.com" });
  return `${base}/support/sessions/redirect?${query}`;
}

function printReady(record: TenantRecord | undefined, mailbox: { smtpUrl: string; local: boolean }): void {
  const base = `http://127.0.0.1:${GATEWAY_PORT}`;
  const key = record ? Object.values(record.tenant.apiKeys).find((secret) => secret !== null) : undefined;
  const lines = [
    "",
    paint(32, "The support platform is running."),
    `  Gateway   ${base}`,
    `  API docs  ${base}/docs`,
  ];
  if (key) {
    lines.push(
      `  API key   ${key}   (demo tenant, saved in .data/demo-tenant.json)`,
      `  Try       curl -H "Authorization: Bearer ${key}" ${base}/games`,
    );
  }
  if (record?.admin) {
    lines.push(
      `  Console   ${supportAppUrl()}/   (the support application for agents and admins)`,
      `  Settings  ${supportAppUrl()}/settings   (the demo admin's: keys, games, team, tags, collectors, articles, webhooks, players, audit log; docs/dashboard.md)`,
      `  Agents    sign in as the demo admin: ${record.admin.email} / ${record.admin.password}   (docs/agents.md)`,
      `            from a shell: curl -c .data/agent.cookies -H "Origin: ${base}" -H "Content-Type: application/json" \\`,
      `              -d '{"email":"${record.admin.email}","password":"${record.admin.password}"}' ${base}/agent-api/sign-in`,
      `            curl -b .data/agent.cookies ${base}/agent-api/me`,
    );
  }
  lines.push(`  Metrics   ${SERVICES.map((s) => `${s.name} http://127.0.0.1:${s.metricsPort}/metrics`).join(", ")}`);
  const link = webSupportLink(record, base);
  if (link) lines.push(`  Support   ${link}`, "            (the web support page as the demo player: each opening starts a new session)");
  if (mailbox.local) lines.push("  Mail      .data/mail/   (what players receive: email codes, agents' replies to email tickets; docs/email.md)");
  lines.push("  Answers   smtp://127.0.0.1:2525   (players' answers by mail: curl --url smtp://127.0.0.1:2525 --mail-from <player> --mail-rcpt <Reply-To> -T <answer.eml>)");
  lines.push("  Admin     pnpm admin help   (token in .data/admin-token, read by the tool)", "  Stop      Ctrl-C", "");
  process.stdout.write(`${lines.join("\n")}\n`);
}

// ---- reset --------------------------------------------------------------------------------

async function reset(): Promise<void> {
  const pid = join(PG_DATA, "postmaster.pid");
  if (existsSync(pid) || !(await portIsFree(GATEWAY_PORT))) {
    throw new Error("the stack seems to be running (stop `make up` first)");
  }
  const localPg = postgresUrl("127.0.0.1", LOCAL_POSTGRES_PORT);
  if (await postgresAnswers(localPg)) {
    await dropDatabase(localPg, DATABASE);
    log(`dropped database ${DATABASE} on 127.0.0.1:${LOCAL_POSTGRES_PORT}`);
  }
  const localNats = `nats://127.0.0.1:${LOCAL_NATS_PORT}`;
  if (await natsJetStreamAnswers(localNats)) {
    // A reused NATS is shared (tests, other checkouts): its streams are listed, never deleted.
    const streams = await listStreams(localNats);
    if (streams.length) {
      log(`left ${streams.length} JetStream stream(s) on the shared 127.0.0.1:${LOCAL_NATS_PORT} alone: ${streams.join(", ")}`);
    }
  }
  const relocated = lstatSync(PG_DATA, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(PG_DATA) : undefined;
  // A relocated cluster goes too: the link and the directory it points to.
  removePostgresDataDir(PG_DATA);
  if (relocated) log(`removed ${relocated}`);
  rmSync(DATA, { recursive: true, force: true });
  log("removed .data/");
}

// ---- main ---------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (process.argv.includes("--reset")) {
    await reset();
    return;
  }
  if (!existsSync(entry("gateway", "main.ts"))) {
    throw new Error("services/gateway/src/main.ts does not exist: nothing to start");
  }
  for (const s of SERVICES) {
    if (!existsSync(entry(s.name, "main.ts"))) continue;
    for (const port of [s.port, s.metricsPort]) {
      if (!(await portIsFree(port))) throw new Error(`port ${port} (${s.name}) is already in use: is another \`make up\` running?`);
    }
  }
  const infra = await startInfra();
  const token = adminToken();
  initIdentities(IDENTITY_DIR);
  await runMigrations(infra);
  const mailbox = await startMailbox();
  const started = startServices(infra, token, mailbox.smtpUrl);
  log(`waiting for the gateway on http://127.0.0.1:${GATEWAY_PORT}/healthz`);
  await waitHealthy("the gateway", GATEWAY_PORT);
  // The demo tenant goes through content's and players' admin RPCs: wait for them too.
  for (const s of started.filter((service) => service.admin)) await waitHealthy(s.name, s.port);
  const record = await demoTenant(infra, token);
  printReady(record, mailbox);
}

main().catch((error: unknown) => {
  if (error instanceof Stopping) return; // a signal is already shutting us down
  void shutdown(1, paint(31, `failed: ${(error as Error).message}`));
});
