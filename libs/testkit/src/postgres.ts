// PostgreSQL for tests and the local stack: DATABASE_URL, else the local server, else a
// container, else a private server started from the Debian binaries (as the `postgres` OS
// user when we are root, since initdb and postgres refuse to run as root).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import pg from "pg";
import { containerEngineAnswers, startPostgresContainer } from "./containers.ts";
import { freePort, isRoot, lookupUser, randomId, tcpAnswers } from "./net.ts";
import type { OsUser } from "./net.ts";
import { createShared, onProcessExit } from "./shared.ts";

export type InfraSource = "env" | "local" | "container" | "binary";

export interface ResolvedPostgres {
  /** A superuser URL (database `postgres`) used to create and drop test databases. */
  adminUrl: string;
  source: InfraSource;
  stop(): Promise<void>;
}

export interface ResolveOptions {
  /** Environment to read DATABASE_URL / NATS_URL / S3_* from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Where to look for an already running local server (default 127.0.0.1 and the standard port). */
  localHost?: string;
  localPort?: number;
  /** Set false to skip the testcontainers step. */
  containers?: boolean;
}

export const LOCAL_POSTGRES_PORT = 5432;

/** True when a Postgres server accepts `url` (TCP probe first, so a closed port costs ~nothing). */
export async function postgresAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  if (!(await tcpAnswers(hostname || "127.0.0.1", Number(port || LOCAL_POSTGRES_PORT), Math.min(timeoutMs, 300)))) {
    return false;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function postgresUrl(host: string, port: number, database = "postgres", user = "postgres"): string {
  return `postgres://${user}@${host}:${port}/${database}`;
}

/** The newest `/usr/lib/postgresql/<v>/bin` that has initdb and pg_ctl. */
export function findPostgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")) && existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

export interface PostgresServerOptions {
  /**
   * Data directory; initialised when it holds no cluster yet. When the server runs as another
   * OS user (we are root) who cannot reach it, the cluster is kept in relocatedDataDir(dataDir)
   * and dataDir becomes a symbolic link to it.
   */
  dataDir: string;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** false (tests): fsync off and friends. true (local stack): crash-safe defaults. */
  durable?: boolean;
  /** Remove dataDir after stopping (temp instances). */
  removeOnStop?: boolean;
  /** More server settings (`name=value`), after the others: a later one wins. */
  settings?: string[];
}

export interface PostgresServer {
  adminUrl: string;
  port: number;
  /** Where the cluster is: the requested directory, or its relocated directory. */
  dataDir: string;
  stop(): Promise<void>;
}

/** The OS user that runs our private Postgres: ourselves, or `postgres` when we are root. */
function serverUser(): OsUser | undefined {
  if (!isRoot()) return undefined;
  const user = lookupUser("postgres") ?? lookupUser("nobody");
  if (!user) throw new Error("running as root but there is no `postgres` (or `nobody`) OS user to run Postgres as");
  return user;
}

/**
 * Where the clusters live whose requested data directory the server's OS user cannot reach (a
 * checkout under root's home or a `mktemp -d` directory, both mode 700): a system directory that
 * user can reach, never anything inside the checkout.
 */
export const RELOCATED_POSTGRES_ROOT = "/var/lib/postgresql/player-support";

/**
 * The relocated directory of a requested data directory: under RELOCATED_POSTGRES_ROOT, named
 * after the end of the requested path plus a hash of all of it, so the same checkout always gets
 * the same directory and two checkouts never share one.
 */
export function relocatedDataDir(dataDir: string): string {
  const requested = resolvePath(dataDir);
  const hash = createHash("sha256").update(requested).digest("hex").slice(0, 12);
  const readable = requested.replace(/^\/+/, "").replace(/[^\w.-]+/g, "-").slice(-48).replace(/^[-.]+/, "");
  return join(RELOCATED_POSTGRES_ROOT, `${readable}-${hash}`);
}

/** Options of spawn/spawnSync that run a command as `user` from `/`, which every user can enter. */
function asUser(user: OsUser | undefined): { uid?: number; gid?: number; cwd?: string } {
  return user ? { uid: user.uid, gid: user.gid, cwd: "/" } : {};
}

/** True when `user` can reach and enter `dir` (every parent traversable). */
function canEnter(user: OsUser, dir: string): boolean {
  return spawnSync("test", ["-x", dir], { ...asUser(user), stdio: "ignore" }).status === 0;
}

/**
 * Makes `requested` a symbolic link to its relocated directory and returns that directory. A
 * cluster already in `requested` (a checkout that became unreachable) is moved there first.
 */
function relocate(requested: string): string {
  const target = relocatedDataDir(requested);
  // Parents owned by root, mode 755 whatever the umask: the server's user traverses them.
  const created = mkdirSync(dirname(target), { recursive: true });
  if (created) {
    for (let dir = dirname(target); dir.startsWith(created); dir = dirname(dir)) chmodSync(dir, 0o755);
  }
  const found = lstatSync(requested, { throwIfNoEntry: false });
  if (found?.isSymbolicLink()) {
    if (readlinkSync(requested) === target) return target;
    unlinkSync(requested);
  } else if (found?.isDirectory()) {
    if (readdirSync(requested).length > 0) {
      if (existsSync(target)) {
        throw new Error(`${requested} and ${target} both hold data: keep one of them (delete the other) and start again`);
      }
      // mv keeps the files' owner and works across file systems.
      const moved = spawnSync("mv", [requested, target], { encoding: "utf8" });
      if (moved.status !== 0) throw new Error(`could not move ${requested} to ${target}: ${moved.stderr.trim()}`);
    } else {
      rmdirSync(requested);
    }
  } else if (found) {
    throw new Error(`${requested} is neither a directory nor a symbolic link`);
  }
  symlinkSync(target, requested);
  return target;
}

/**
 * Removes a data directory made by startPostgresServer: the directory, or the symbolic link and
 * the relocated directory it points to (only ever one under RELOCATED_POSTGRES_ROOT).
 */
export function removePostgresDataDir(dataDir: string): void {
  const found = lstatSync(dataDir, { throwIfNoEntry: false });
  if (found?.isSymbolicLink()) {
    const target = resolvePath(dirname(dataDir), readlinkSync(dataDir));
    if (target.startsWith(`${RELOCATED_POSTGRES_ROOT}/`)) rmSync(target, { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}

function run(cmd: string, args: string[], user: OsUser | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ["ignore", "pipe", "pipe"],
      ...asUser(user),
      env: { ...process.env, ...(user ? { HOME: "/tmp", USER: user.name } : {}) },
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}${user ? ` (as ${user.name})` : ""}:\n${output.trim()}`));
    });
  });
}

/**
 * Starts a Postgres server from the local binaries (pg_ctl, detached in its own session).
 * Trust auth, superuser `postgres`, listening on 127.0.0.1 only, no Unix socket.
 */
export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const bin = findPostgresBinDir();
  if (!bin) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
  const user = serverUser();
  const requested = resolvePath(options.dataDir);
  const port = options.port ?? (await freePort());
  // The parent keeps default permissions so the server's OS user can reach the data dir.
  mkdirSync(dirname(requested), { recursive: true });
  // The server's OS user must reach its data directory; when a parent of it is closed to that
  // user (mode 700), the cluster lives in a system directory instead, linked from `requested`.
  const dataDir = user && !canEnter(user, dirname(requested)) ? relocate(requested) : requested;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) {
    chownSync(dataDir, user.uid, user.gid);
    const reach = spawnSync("test", ["-w", dataDir], { ...asUser(user), stdio: "ignore" });
    if (reach.status !== 0) throw new Error(`the ${user.name} OS user cannot write ${dataDir}`);
  }
  const remove = (): void => removePostgresDataDir(requested);

  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    await run(
      join(bin, "initdb"),
      ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", ...(options.durable ? [] : ["--no-sync"])],
      user,
    );
  }

  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    "-c unix_socket_directories=''",
    "-c max_connections=200",
    ...(options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
    ...(options.settings ?? []).map((setting) => `-c ${setting}`),
  ].join(" ");
  const pgCtl = join(bin, "pg_ctl");
  const logFile = join(dataDir, "server.log");
  await run(pgCtl, ["-D", dataDir, "-l", logFile, "-o", settings, "-w", "-t", "60", "start"], user);

  const stopSync = (): void => {
    spawnSync(pgCtl, ["-D", dataDir, "-m", "immediate", "-w", "stop"], { stdio: "ignore", ...asUser(user) });
    if (options.removeOnStop) remove();
  };
  const unregister = onProcessExit(stopSync);
  let stopped = false;
  return {
    adminUrl: postgresUrl("127.0.0.1", port),
    port,
    dataDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      unregister();
      const postmaster = postmasterPid(dataDir);
      await run(pgCtl, ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"], user);
      // pg_ctl returns once the pid file is gone, which the postmaster removes just before it
      // exits: stopped means the process is gone too (its port free, nothing left running).
      if (postmaster !== undefined) await processGone(postmaster, dataDir, 10_000);
      if (options.removeOnStop) remove();
    },
  };
}

/** The postmaster's pid, from the first line of the data directory's postmaster.pid. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves when process `pid` no longer runs a command naming `dataDir` (ended, reaped or a zombie), or after `timeoutMs`. */
async function processGone(pid: number, dataDir: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    let running: boolean;
    try {
      running = readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dataDir);
    } catch {
      running = false;
    }
    if (!running || Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A throw-away private server in a temp dir, shared by every caller in this process. */
const privatePostgres = createShared(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "testkit-pg-"));
  try {
    return await startPostgresServer({ dataDir, removeOnStop: true });
  } catch (error) {
    removePostgresDataDir(dataDir);
    throw error;
  }
});

const containerPostgres = createShared(startPostgresContainer);

export async function resolvePostgres(options: ResolveOptions = {}): Promise<ResolvedPostgres> {
  const env = options.env ?? process.env;
  if (env.DATABASE_URL) return { adminUrl: env.DATABASE_URL, source: "env", stop: async () => {} };

  const localUrl = postgresUrl(options.localHost ?? "127.0.0.1", options.localPort ?? LOCAL_POSTGRES_PORT);
  if (await postgresAnswers(localUrl)) return { adminUrl: localUrl, source: "local", stop: async () => {} };

  if (options.containers !== false && (await containerEngineAnswers())) {
    const lease = await containerPostgres.acquire();
    return { adminUrl: postgresUrl(lease.value.host, lease.value.port), source: "container", stop: lease.release };
  }

  const lease = await privatePostgres.acquire();
  return { adminUrl: lease.value.adminUrl, source: "binary", stop: lease.release };
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Same server and credentials as `url`, another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A database prepared once and copied for each test run that needs it: `key` names what it holds
 * (a hash of the migrations that made it), `prepare` makes it from an empty database.
 */
export interface DatabaseTemplate {
  key: string;
  prepare(url: string): Promise<void>;
}

/** How long a template nobody made again is kept before a new template's creation drops it. */
const TEMPLATE_KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * The template database of `template`, made when missing: `tmpl_<key>`. Copying it costs a file
 * copy (0.7 s) where running every service's migrations took 3-4 s for each test stack. One
 * process makes it (an advisory lock serializes the runs and lanes of the machine); a template
 * is usable once its comment says "ready" (one whose making was cut off is made again).
 * Templates of other keys (other code) are left to their runs, and dropped after a day.
 */
export async function ensureTemplateDatabase(adminUrl: string, template: DatabaseTemplate): Promise<string> {
  if (!/^[a-z0-9]{8,40}$/.test(template.key)) throw new Error(`template key must be 8-40 lowercase letters and digits, not ${template.key}`);
  const name = `tmpl_${template.key}`;
  return withAdmin(adminUrl, async (c) => {
    const ready = async () => {
      const { rows } = await c.query<{ comment: string | null }>("SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1", [name]);
      return rows[0]?.comment?.startsWith("ready") === true;
    };
    if (await ready()) return name;
    await c.query("SELECT pg_advisory_lock(hashtext('support test templates'))");
    try {
      if (await ready()) return name;
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.query(`CREATE DATABASE "${name}"`);
      await template.prepare(withDatabase(adminUrl, name));
      await c.query(`COMMENT ON DATABASE "${name}" IS 'ready ${new Date().toISOString()}'`);
      // Other keys' templates made more than a day ago: no run of that code is likely to need them.
      const { rows } = await c.query<{ datname: string; comment: string | null }>(
        "SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname LIKE 'tmpl\\_%' AND datname <> $1",
        [name],
      );
      for (const other of rows) {
        const madeAt = Date.parse(other.comment?.replace(/^ready /, "") ?? "");
        if (!Number.isNaN(madeAt) && Date.now() - madeAt > TEMPLATE_KEPT_MS) await c.query(`DROP DATABASE IF EXISTS "${other.datname}" WITH (FORCE)`);
      }
      return name;
    } finally {
      await c.query("SELECT pg_advisory_unlock(hashtext('support test templates'))");
    }
  });
}

/**
 * Creates a fresh, uniquely named database (`t_<ms>_<random>`), empty or a copy of `template`
 * (made when missing); `drop()` removes it with FORCE.
 */
export async function createTestDatabase(adminUrl: string, template?: DatabaseTemplate): Promise<TestDatabase> {
  const name = `t_${Date.now()}_${randomId(6)}`;
  const from = template ? await ensureTemplateDatabase(adminUrl, template) : undefined;
  await withAdmin(adminUrl, (c) => c.query(from ? `CREATE DATABASE "${name}" TEMPLATE "${from}"` : `CREATE DATABASE "${name}"`));
  let dropped = false;
  return {
    name,
    url: withDatabase(adminUrl, name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Creates database `name` when missing; true when it was created now. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<boolean> {
  return withAdmin(adminUrl, async (c) => {
    const found = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount) return false;
    await c.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return true;
  });
}

/** Drops database `name` (ending its connections) when it exists. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`));
}

/**
 * A string that changes when the server's cluster or the database itself is recreated
 * (cluster system identifier + database oid); undefined when the database does not exist.
 */
export async function databaseIdentity(adminUrl: string, name: string): Promise<string | undefined> {
  return withAdmin(adminUrl, async (c) => {
    const r = await c.query<{ id: string }>(
      "SELECT (SELECT system_identifier FROM pg_control_system())::text || ':' || oid::text AS id FROM pg_database WHERE datname = $1",
      [name],
    );
    return r.rows[0]?.id;
  });
}
