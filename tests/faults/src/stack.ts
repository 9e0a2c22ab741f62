// A whole stack of real processes for one fault scenario, private to it: its own Postgres
// (initdb into a temp dir, its own port), its own nats-server (JetStream, temp store dir, its
// own port; or a JetStream cluster of three), its own S3 server, then content, tickets, media, players, webhooks and the gateway as child
// processes. A fault touches only what this stack started; the machine's shared Postgres and
// NATS are never used. Every child's exit is watched: an exit the scenario did not cause is
// recorded in `unexpectedExits`. A process may run as several named instances (replicas on
// other addresses or ports).
import { fork, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { streamNameFor } from "@support/bus";
import {
  findPostgresBinDir,
  freePort,
  isRoot,
  lookupUser,
  startNatsServer,
  startPostgresServer,
  startS3rver,
  type NatsServer,
  type PostgresServer,
  type S3rverServer,
  createTestServiceIdentities,
} from "@support/testkit";

export const root = path.resolve(import.meta.dirname, "../../..");

export const SERVICES = ["content", "tickets", "media", "players", "webhooks", "email"] as const;
export type Service = (typeof SERVICES)[number];
export type ProcessName = Service | "gateway";

export interface TenantResult {
  companyId: string;
  apiKeys: Record<string, string>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }> }>;
}

export interface ExitRecord {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** One nats-server of the stack: alone, or a node of its JetStream cluster. */
interface NatsNode {
  /** `nats-server` alone; the server name (`n1`...) in a cluster. */
  name: string;
  port: number;
  storeDir: string;
  /** Its arguments beyond the port and store dir: the server name and the cluster routes. */
  args: string[];
  server: NatsServer | undefined;
  /** Set before the scenario stops or kills it: its exit is then expected. */
  expected: boolean;
}

/** The nodes of a stack's NATS: one server, or `size` servers clustered with JetStream on free ports. */
async function natsNodes(tempDir: string, size: number): Promise<NatsNode[]> {
  if (size === 1) return [{ name: "nats-server", port: await freePort(), storeDir: path.join(tempDir, "nats"), args: [], server: undefined, expected: false }];
  const ports: { client: number; cluster: number }[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), cluster: await freePort() });
  const routes = ports.map((p) => `nats://127.0.0.1:${p.cluster}`).join(",");
  return ports.map((p, i) => ({
    name: `n${i + 1}`,
    port: p.client,
    storeDir: path.join(tempDir, `nats-n${i + 1}`),
    // A JetStream cluster needs a server name per node and one cluster name.
    args: ["-n", `n${i + 1}`, "--cluster_name", "faults", "--cluster", `nats://127.0.0.1:${p.cluster}`, "--routes", routes],
    server: undefined,
    expected: false,
  }));
}

interface Running {
  child: ChildProcess;
  /** Set before the scenario stops or kills it: its exit is then expected. */
  expected: boolean;
  exited: Promise<ExitRecord>;
  stderr: string;
}

const began = Date.now();

/** A progress line on stderr with the seconds since the file started: where a slow run spends its time. */
export function progress(message: string): void {
  console.error(`[faults +${((Date.now() - began) / 1000).toFixed(1)}s] ${message}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a command to completion (as `user` when given); rejects with its output when it fails.
 * Output goes to a file, not a pipe: `pg_ctl restart` leaves a postmaster that inherits it.
 */
function run(command: string, args: string[], logFile: string, user?: { uid: number; gid: number; name: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = openSync(logFile, "a");
    const child = spawn(command, args, {
      stdio: ["ignore", out, out],
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      env: { ...process.env, ...(user ? { HOME: "/tmp", USER: user.name } : {}) },
    });
    closeSync(out);
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${readFileSync(logFile, "utf8").slice(-3000)}`));
    });
  });
}

/** A script that runs to completion (migrations, the admin tool); resolves with its stdout. */
function runScript(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { cwd: root, env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe", "ipc"] });
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}:\n${err.slice(-4000)}`))));
  });
}

export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/**
 * Waits until a new cluster can place a stream on every node: a metadata leader is elected and
 * every node has joined (before that, a service's stream of NATS_STREAM_REPLICAS copies is
 * refused with "insufficient resources" and the service stops at start).
 */
async function waitUntilJetStreamAnswers(servers: string[]): Promise<void> {
  await waitUntil("the JetStream cluster to place a stream on every node", async () => {
    const nc = await connect({ servers, timeout: 2000, reconnect: false });
    try {
      const jsm = await jetstreamManager(nc, { timeout: 5000 });
      const name = `CLUSTER_PROBE_${randomBytes(3).toString("hex")}`;
      await jsm.streams.add({ name, subjects: [`cluster-probe.${name}`], num_replicas: servers.length });
      await jsm.streams.delete(name);
      return true;
    } finally {
      await nc.close().catch(() => undefined);
    }
  }, 30_000, 500);
}

/** The standby's name on the primary (synchronous_standby_names, the standby's application_name). */
export const STANDBY_NAME = "standby1";

/** The OS user our Postgres runs as: `postgres` when we are root (it refuses root). */
function postgresUser(): { uid: number; gid: number; name: string } | undefined {
  return isRoot() ? (lookupUser("postgres") ?? lookupUser("nobody")) : undefined;
}

/**
 * A streaming standby of `primary` in `dataDir`: pg_basebackup with -R (standby.signal and the
 * primary's conninfo, named STANDBY_NAME), then started like any server of the stack.
 */
async function startStandby(primary: PostgresServer, dataDir: string, logFile: string): Promise<PostgresServer> {
  const bin = findPostgresBinDir()!;
  const user = postgresUser();
  mkdirSync(dataDir, { mode: 0o700 });
  if (user) chownSync(dataDir, user.uid, user.gid);
  const conninfo = `host=127.0.0.1 port=${primary.port} user=postgres application_name=${STANDBY_NAME}`;
  await run(path.join(bin, "pg_basebackup"), ["-D", dataDir, "-d", conninfo, "-X", "stream", "-R", "--no-sync"], logFile, user);
  // The conninfo -R wrote may leave out the application name the primary waits for: the last line wins.
  appendFileSync(path.join(dataDir, "postgresql.auto.conf"), `primary_conninfo = '${conninfo}'\n`);
  return startPostgresServer({ dataDir, removeOnStop: false });
}

export class FaultStack {
  readonly env: Record<string, string>;
  readonly gateway: string;
  /** What the services get: the one server, or both (primary first) with target_session_attrs=read-write. */
  readonly databaseUrl: string;
  /** Every NATS server's URL, comma-separated (as NATS_URL takes them). */
  readonly natsUrl: string;
  readonly natsPrefix: string;
  readonly ports: Record<ProcessName, number>;
  /** Exits of children that the scenario neither stopped nor killed. */
  readonly unexpectedExits: ExitRecord[] = [];

  /** By instance name: the process name, or the name a replica was started under. */
  private readonly running = new Map<string, Running>();
  private readonly adminToken = randomBytes(24).toString("base64url");
  /** Each process's service identity key and the trust of them all, made for this run. */
  private readonly identities = createTestServiceIdentities();
  private readonly postgres: PostgresServer;
  /** The streaming standby (synchronous), when the stack has one. */
  private readonly standby: PostgresServer | undefined;
  /** The server that takes writes now: the primary, or the standby once promoted. */
  private current: PostgresServer;
  private readonly natsNodes: NatsNode[];
  private readonly s3: S3rverServer;
  private readonly tempDir: string;
  private readonly gatewayEnv: Record<string, string>;

  private constructor(parts: {
    postgres: PostgresServer;
    standby: PostgresServer | undefined;
    natsNodes: NatsNode[];
    s3: S3rverServer;
    tempDir: string;
    ports: Record<ProcessName, number>;
    gatewayEnv: Record<string, string>;
    env: Record<string, string>;
  }) {
    this.postgres = parts.postgres;
    this.standby = parts.standby;
    this.current = parts.postgres;
    this.natsNodes = parts.natsNodes;
    this.s3 = parts.s3;
    this.tempDir = parts.tempDir;
    this.ports = parts.ports;
    this.gatewayEnv = parts.gatewayEnv;
    this.databaseUrl = parts.standby
      ? `postgres://postgres@127.0.0.1:${parts.postgres.port},127.0.0.1:${parts.standby.port}/postgres?target_session_attrs=read-write`
      : parts.postgres.adminUrl;
    this.natsUrl = parts.natsNodes.map((node) => `nats://127.0.0.1:${node.port}`).join(",");
    this.natsPrefix = `faults_${randomBytes(3).toString("hex")}_`;
    this.gateway = `http://127.0.0.1:${parts.ports.gateway}`;
    const url = (name: ProcessName) => `http://127.0.0.1:${parts.ports[name]}`;
    this.env = {
      DATABASE_URL: this.databaseUrl,
      NATS_URL: this.natsUrl,
      NATS_PREFIX: this.natsPrefix,
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      CONTENT_URL: url("content"),
      TICKETS_URL: url("tickets"),
      MEDIA_URL: url("media"),
      PLAYERS_URL: url("players"),
      WEBHOOKS_URL: url("webhooks"),
      EMAIL_URL: url("email"),
      // Webhook signing secrets are encrypted with this key; receivers of a scenario are local.
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      S3_ENDPOINT: parts.s3.endpoint,
      S3_REGION: parts.s3.region,
      S3_BUCKET: parts.s3.bucket,
      S3_ACCESS_KEY_ID: parts.s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: parts.s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
      // Every process serves metrics, each on a free port (the default one would clash).
      METRICS_PORT: "0",
      // The scenarios send thousands of requests a minute for one company: the API-key rate
      // limits stay on (counted and synced) but far above that, so faults are what is measured.
      API_RATE_LIMIT_PER_MINUTE: "1000000000",
      // Every stream on every node of a cluster.
      NATS_STREAM_REPLICAS: String(parts.natsNodes.length),
      ...parts.env,
    };
    for (const node of this.natsNodes) this.watchNats(node);
  }

  /**
   * Starts the private Postgres, NATS and S3, migrates every service, starts the five services
   * and the gateway (with `gatewayEnv` added) and waits until the gateway reports every service
   * up. `options.env` is added to every process's environment; `options.start` limits what is
   * started (the caller starts the rest, e.g. as replicas). `options.natsCluster` runs NATS as a
   * JetStream cluster of that many nodes, every stream replicated on each. `options.standby`
   * adds a streaming standby of Postgres (pg_basebackup), replicated synchronously unless
   * `"async"`, and gives the services both servers in DATABASE_URL.
   */
  static async start(
    gatewayEnv: Record<string, string> = {},
    options: { env?: Record<string, string>; start?: readonly ProcessName[]; natsCluster?: number; standby?: "sync" | "async" } = {},
  ): Promise<FaultStack> {
    const tempDir = mkdtempSync(path.join(tmpdir(), "fault-suite-"));
    // Postgres runs as the `postgres` OS user when we are root: it must reach its data dir.
    chmodSync(tempDir, 0o755);
    const cleanups: (() => Promise<void>)[] = [];
    try {
      const postgres = await startPostgresServer({
        dataDir: path.join(tempDir, "pg"),
        removeOnStop: false,
        // A commit waits for the standby's flush: nothing acknowledged is lost when it takes over.
        settings: options.standby === "sync" ? ["synchronous_commit=on", `synchronous_standby_names=${STANDBY_NAME}`] : [],
      });
      cleanups.push(() => postgres.stop());
      let standby: PostgresServer | undefined;
      if (options.standby) {
        standby = await startStandby(postgres, path.join(tempDir, "pg-standby"), path.join(tempDir, "pg_basebackup.log"));
        const server = standby;
        cleanups.push(() => server.stop());
      }
      const nodes = await natsNodes(tempDir, options.natsCluster ?? 1);
      for (const node of nodes) {
        node.server = await startNatsServer({ storeDir: node.storeDir, port: node.port, args: node.args });
        cleanups.push(() => node.server!.stop());
      }
      if (nodes.length > 1) await waitUntilJetStreamAnswers(nodes.map((node) => node.server!.url));
      const s3 = await startS3rver({ directory: path.join(tempDir, "s3"), bucket: "fault-suite" });
      cleanups.push(() => s3.stop());
      const ports = {
        content: await freePort(),
        tickets: await freePort(),
        media: await freePort(),
        players: await freePort(),
        webhooks: await freePort(),
        email: await freePort(),
        gateway: await freePort(),
      };
      progress(`private Postgres, NATS${nodes.length > 1 ? ` (a cluster of ${nodes.length})` : ""} and S3 up`);
      const stack = new FaultStack({ postgres, standby, natsNodes: nodes, s3, tempDir, ports, gatewayEnv, env: options.env ?? {} });
      cleanups.length = 0;
      try {
        await Promise.all(SERVICES.map((service) => runScript(path.join(root, `services/${service}/src/migrate.ts`), [], stack.env)));
        progress("migrated");
        const started = options.start ?? [...SERVICES, "gateway"];
        for (const name of started) stack.startProcess(name);
        if (started.includes("gateway")) {
          await stack.waitUntilReady(60_000).catch((error: Error) => {
            throw new Error(`${error.message}; processes that exited: ${JSON.stringify(stack.unexpectedExits.map((e) => ({ ...e, stderr: e.stderr.slice(-1500) })))}`);
          });
          progress(`stack ready, gateway ${stack.gateway}`);
        }
      } catch (error) {
        await stack.stop();
        throw error;
      }
      return stack;
    } catch (error) {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      rmSync(tempDir, { recursive: true, force: true });
      throw error;
    }
  }

  private watchNats(node: NatsNode): void {
    node.server!.child.once("exit", (code, signal) => {
      if (!node.expected) this.unexpectedExits.push({ name: node.name, code, signal, stderr: "" });
    });
  }

  private natsNode(name: string): NatsNode {
    const node = this.natsNodes.find((n) => n.name === name);
    if (!node) throw new Error(`no NATS node ${name}`);
    return node;
  }

  /** The names of the NATS nodes (`nats-server` alone, `n1`... in a cluster). */
  get natsNodeNames(): string[] {
    return this.natsNodes.map((node) => node.name);
  }

  /** SIGKILLs one NATS node (its exit is expected) and waits until it is gone. */
  async killNatsNode(name: string): Promise<void> {
    const node = this.natsNode(name);
    const server = node.server;
    if (!server) throw new Error(`NATS node ${name} does not run`);
    node.expected = true;
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGKILL");
    await exited;
    await server.stop();
    node.server = undefined;
  }

  /** Starts a killed NATS node again on its port and store dir (in its cluster again). */
  async startNatsNode(name: string): Promise<void> {
    const node = this.natsNode(name);
    if (node.server) throw new Error(`NATS node ${name} runs already`);
    node.server = await startNatsServer({ storeDir: node.storeDir, port: node.port, args: node.args });
    node.expected = false;
    this.watchNats(node);
  }

  /**
   * The server name of the cluster node that leads a service's stream (undefined while there is
   * none, e.g. during an election) and those of its followers that are current.
   */
  async natsStreamLeader(service: string): Promise<{ leader: string | undefined; current: string[] }> {
    const nc = await connect({ servers: this.natsUrl.split(","), timeout: 3000, reconnect: false });
    try {
      const jsm = await jetstreamManager(nc, { timeout: 3000 });
      const info = await jsm.streams.info(streamNameFor(this.natsPrefix, service));
      return { leader: info.cluster?.leader || undefined, current: (info.cluster?.replicas ?? []).filter((r) => r.current && !r.offline).map((r) => r.name) };
    } finally {
      await nc.close().catch(() => undefined);
    }
  }

  /**
   * Starts one service (or the gateway) as a child process on its port (or `env.PORT`); `env`
   * is added. `instance` names a replica; `onLine` gets each line the process writes to stderr
   * (its log).
   */
  startProcess(name: ProcessName, env: Record<string, string> = {}, instance: string = name, onLine?: (line: string) => void): ChildProcess {
    if (this.running.has(instance)) throw new Error(`${instance} runs already`);
    const admin = name === "content" || name === "players" || name === "webhooks" ? { ADMIN_TOKEN: this.adminToken } : {};
    const extra = name === "gateway" ? this.gatewayEnv : {};
    const child = fork(path.join(root, `services/${name}/src/main.ts`), [], {
      cwd: root,
      env: { ...process.env, ...this.env, ...admin, ...extra, ...this.identities.env(name), ...env, PORT: env.PORT ?? String(this.ports[name]) },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    if (onLine) {
      let rest = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) onLine(line);
      });
    }
    const entry: Running = { child, expected: false, stderr: "", exited: undefined as unknown as Promise<ExitRecord> };
    child.stderr!.on("data", (chunk: Buffer) => {
      entry.stderr = (entry.stderr + chunk.toString()).slice(-8000);
    });
    entry.exited = new Promise<ExitRecord>((resolve) =>
      child.once("exit", (code, signal) => {
        const record = { name: instance, code, signal, stderr: entry.stderr };
        if (!entry.expected) this.unexpectedExits.push(record);
        if (this.running.get(instance) === entry) this.running.delete(instance);
        resolve(record);
      }),
    );
    this.running.set(instance, entry);
    return child;
  }

  pid(name: string): number {
    const entry = this.running.get(name);
    if (!entry?.child.pid) throw new Error(`${name} does not run`);
    return entry.child.pid;
  }

  /**
   * Sends `signal` to one child (its exit is then expected) and resolves with its exit, or
   * rejects when it has not exited after `timeoutMs` (it is then SIGKILLed).
   */
  async signal(name: string, signal: NodeJS.Signals, timeoutMs = 15_000): Promise<ExitRecord> {
    const entry = this.running.get(name);
    if (!entry) throw new Error(`${name} does not run`);
    entry.expected = true;
    entry.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        entry.child.kill("SIGKILL");
        reject(new Error(`${name} did not exit within ${timeoutMs} ms of ${signal}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([entry.exited, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * True when the gateway's /healthz/dependencies answers 200: every service and its database
   * answer, and no breaker is open. (Its /readyz depends on the gateway alone.)
   */
  async ready(gateway: string = this.gateway): Promise<boolean> {
    const response = await fetch(`${gateway}/healthz/dependencies`, { signal: AbortSignal.timeout(3000) });
    await response.arrayBuffer();
    return response.status === 200;
  }

  async waitUntilReady(timeoutMs = 60_000, gateway: string = this.gateway): Promise<void> {
    await waitUntil(`${gateway}/healthz/dependencies`, () => this.ready(gateway), timeoutMs);
  }

  /** Applies a tenant file (tools/admin) to this stack's content and players services. */
  async applyTenant(tenant: unknown): Promise<TenantResult> {
    const file = path.join(this.tempDir, `tenant-${randomBytes(3).toString("hex")}.json`);
    writeFileSync(file, JSON.stringify(tenant));
    const out = await runScript(path.join(root, "tools/admin/src/cli.ts"), ["apply", file], { ...this.env, ADMIN_TOKEN: this.adminToken, ...this.identities.env("admin") });
    return JSON.parse(out) as TenantResult;
  }

  /** `pg_ctl restart -m fast` of this stack's own Postgres (same port, same data). */
  async restartPostgres(): Promise<void> {
    const bin = findPostgresBinDir();
    if (!bin) throw new Error("no PostgreSQL binaries");
    const user = isRoot() ? (lookupUser("postgres") ?? lookupUser("nobody")) : undefined;
    // -l again: the restarted server's output goes where the first start sent it, not to pg_ctl's.
    const log = path.join(this.postgres.dataDir, "server.log");
    await run(path.join(bin, "pg_ctl"), ["-D", this.postgres.dataDir, "-l", log, "-m", "fast", "-w", "-t", "30", "restart"], path.join(this.tempDir, "pg_ctl.log"), user);
  }

  /**
   * Stops the primary as a crash does (`pg_ctl stop -m immediate`: every connection cut, no
   * shutdown checkpoint); it stays down.
   */
  async killPrimary(): Promise<void> {
    const bin = findPostgresBinDir()!;
    await run(path.join(bin, "pg_ctl"), ["-D", this.postgres.dataDir, "-m", "immediate", "-w", "stop"], path.join(this.tempDir, "pg_ctl.log"), postgresUser());
  }

  /** Promotes the standby (`pg_ctl promote`, waiting until it takes writes); it is the server from then on. */
  async promoteStandby(): Promise<void> {
    if (!this.standby) throw new Error("the stack has no standby");
    const bin = findPostgresBinDir()!;
    await run(path.join(bin, "pg_ctl"), ["-D", this.standby.dataDir, "-w", "-t", "30", "promote"], path.join(this.tempDir, "pg_ctl.log"), postgresUser());
    this.current = this.standby;
  }

  /** SIGKILLs this stack's nats-server and starts it again on the same port and store dir. */
  async killAndRestartNats(downMs: number): Promise<void> {
    const name = this.natsNodes[0]!.name;
    await this.killNatsNode(name);
    await sleep(downMs);
    await this.startNatsNode(name);
  }

  /** SIGSTOPs this stack's nats-server for `ms`, then SIGCONTs it. */
  async stallNats(ms: number): Promise<void> {
    const child = this.natsNodes[0]!.server!.child;
    child.kill("SIGSTOP");
    try {
      await sleep(ms);
    } finally {
      child.kill("SIGCONT");
    }
  }

  /** A client of this stack's own database (its `tickets` and `players` schemas). */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.current.adminUrl, connectionTimeoutMillis: 5000 });
    client.on("error", () => undefined);
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Stops every child (the gateway first), then NATS, S3 and Postgres, and removes the temp dir. */
  async stop(): Promise<void> {
    const stopOne = async (instance: string) => {
      if (!this.running.has(instance)) return;
      await this.signal(instance, "SIGTERM", 10_000).catch(() => undefined);
    };
    const gateways = [...this.running.keys()].filter((instance) => instance.startsWith("gateway"));
    await Promise.all(gateways.map(stopOne));
    await Promise.all([...this.running.keys()].map(stopOne));
    for (const node of this.natsNodes) {
      node.expected = true;
      node.server?.child.kill("SIGCONT");
    }
    await Promise.all(this.natsNodes.map((node) => node.server?.stop().catch(() => undefined)));
    await this.s3.stop().catch(() => undefined);
    await this.postgres.stop().catch(() => undefined);
    await this.standby?.stop().catch(() => undefined);
    rmSync(this.tempDir, { recursive: true, force: true });
  }
}
