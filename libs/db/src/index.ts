// Postgres access for one service: a kysely instance whose connections live in the service's
// own schema (search_path), and migrations whose bookkeeping tables sit in that schema too,
// so services share a database server without sharing tables.
import { Kysely, PostgresDialect, sql, type Generated } from "kysely";
import { Migrator, type Migration, type MigrationResultSet } from "kysely/migration";
import pg from "pg";
import { addScrapeSource, type Registry } from "@support/metrics";
import { parseTimestamptz } from "./timestamps.ts";
import { traceQueries } from "./tracing.ts";
import { boundWaitingLine } from "./admission.ts";
import { defaultPreparedStatementsMax, prepareStatements, StatementNames } from "./prepared-statements.ts";
import { parseMultiHostUrl, writableClientClass, WritableHost } from "./hosts.ts";

export { sql };
export { PLANNED_EACH_TIME } from "./prepared-statements.ts";
export { POOL_DEADLINE_MESSAGE } from "./admission.ts";
export { NoWritableHostError, parseMultiHostUrl, type DatabaseHost, type MultiHostUrl } from "./hosts.ts";
export type { Generated, Kysely, Migration };

// Return int8 (bigint, counts) as numbers: our counters stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
// timestamptz: the same Dates as pg's parser, read faster (timestamps.ts).
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);
// numeric stays a string in pg; we store fractional hours as double precision instead.

export interface DatabaseSettings {
  url: string;
  /** The service's schema; also where its migration tables live. */
  schema: string;
  /** Pool size; small by default because every service shares one Postgres. */
  maxConnections?: number;
  applicationName?: string;
  /**
   * Told about every connection the server ended or that broke (a restart, a failover, a
   * terminated backend), whether it sat idle in the pool or was checked out. The pool
   * discards it and opens a new one for the next query.
   */
  onConnectionError?: (error: Error) => void;
  /**
   * Longest wait for a new connection to open, so that a query (and readiness) fails fast while
   * Postgres is down. Not a bound on waiting for a busy pool: that is the caller's deadline.
   */
  connectTimeoutMs?: number;
  /**
   * Most statement texts sent as named (prepared) statements, parsed and planned once per
   * connection (see prepared-statements.ts); 0 sends every statement unnamed (a pooler in
   * transaction mode that does not keep prepared statements). Default 256.
   */
  preparedStatementsMax?: number;
  /**
   * How many queries of callers (calls handled with a deadline) may wait for a connection at once;
   * one more is refused at once (see admission.ts). Default 256: a backstop behind the gateway's
   * own admission (RPC_MAX_IN_FLIGHT calls per service and gateway replica).
   */
  maxWaiting?: number;
  /**
   * Connections kept apart for reads (calls whose RPC method declares no side effects), used
   * when every connection of the pool is in use (see admission.ts); 0: none. Default 2.
   */
  readLaneConnections?: number;
}

const schemaName = /^[a-z_][a-z0-9_]*$/;

function assertSchemaName(schema: string): void {
  if (!schemaName.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
}

function databaseNameOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1));
  } catch {
    return ""; // not a URL (a libpq keyword string): the spans just name no database
  }
}

/**
 * Where the connections of a URL naming several hosts go: one finder per URL in this process,
 * shared by its pools and dedicated connections (see hosts.ts), so they agree on the primary.
 */
const writableHosts = new Map<string, WritableHost>();

function writableHostOf(url: string, connectTimeoutMs: number): { writable: WritableHost; firstUrl: string } | undefined {
  const parsed = parseMultiHostUrl(url);
  if (!parsed) return undefined;
  let writable = writableHosts.get(url);
  if (!writable) {
    writable = new WritableHost(parsed, connectTimeoutMs);
    writableHosts.set(url, writable);
  }
  return { writable, firstUrl: parsed.urlFor(parsed.hosts[0]!) };
}

/**
 * A dedicated connection (not pooled: a LISTEN) to the server of `config.connectionString`; with
 * several hosts in it, to the one that takes writes (see hosts.ts).
 */
export function createClient(config: pg.ClientConfig & { connectionString: string }): pg.Client {
  const multi = writableHostOf(config.connectionString, config.connectionTimeoutMillis ?? 5_000);
  if (!multi) return new pg.Client(config);
  const Client = writableClientClass(multi.writable);
  return new Client({ ...config, connectionString: multi.firstUrl });
}

// The read lane of each pool made by createPool (see admission.ts), for its gauges and its end.
const readLanes = new WeakMap<pg.Pool, pg.Pool>();

export function createPool(settings: DatabaseSettings): pg.Pool {
  const pool = openPool(settings, settings.maxConnections ?? 10);
  const laneSize = settings.readLaneConnections ?? 2;
  const readLane = laneSize > 0 ? openPool(settings, laneSize) : undefined;
  boundWaitingLine(pool, settings.maxWaiting ?? 256, readLane);
  if (readLane) {
    readLanes.set(pool, readLane);
    // kysely ends the pool at destroy(): the lane ends with it.
    const end = pool.end.bind(pool) as () => Promise<void>;
    pool.end = (async () => {
      await Promise.all([end(), readLane.end()]);
    }) as typeof pool.end;
  }
  return pool;
}

/**
 * The pool's client class with its own connect timeout. The pool's `connectionTimeoutMillis`
 * bounds both opening a connection and waiting in the pool's line for a busy one; the line is
 * bounded by the caller's deadline instead (admission.ts), so the pool gets none and each new
 * connection gets the timeout itself: a server that does not answer still fails a query fast,
 * while a query behind a busy pool waits as long as its caller does.
 */
function withConnectTimeout(Base: typeof pg.Client, connectTimeoutMs: number): typeof pg.Client {
  return class TimedClient extends Base {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === "string" ? { connectionString: config } : config), connectionTimeoutMillis: connectTimeoutMs });
    }
  };
}

function openPool(settings: DatabaseSettings, max: number): pg.Pool {
  assertSchemaName(settings.schema);
  const connectTimeoutMs = settings.connectTimeoutMs ?? 5_000;
  const multi = writableHostOf(settings.url, connectTimeoutMs);
  const pool = new pg.Pool({
    connectionString: multi?.firstUrl ?? settings.url,
    Client: withConnectTimeout(multi ? writableClientClass(multi.writable) : pg.Client, connectTimeoutMs),
    max,
    application_name: settings.applicationName ?? settings.schema,
    // Unqualified names resolve in the service's schema first; `public` holds extensions.
    options: `-c search_path=${settings.schema},public`,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 0,
  });
  // A connection that the server ends must never crash the process. A pg client emits
  // 'error' when that happens; the pool listens only while the client sits idle, so a client
  // checked out at that moment (inside a transaction, between two queries) had no listener
  // and the error was thrown as an unhandled 'error' event. Every client gets its own
  // listener for its whole life: the query in progress, if any, fails with the error (so the
  // unit of work fails and is rolled back by the server), and the pool drops the broken client
  // when it is released (it is no longer queryable).
  const onError = (error: Error) => settings.onConnectionError?.(error);
  const database = databaseNameOf(settings.url);
  const preparedMax = settings.preparedStatementsMax ?? defaultPreparedStatementsMax;
  const names = preparedMax > 0 ? new StatementNames(preparedMax) : undefined;
  pool.on("connect", (client) => {
    client.on("error", onError);
    // Named statements first: the span wraps the call as the service made it.
    if (names) prepareStatements(client, names);
    traceQueries(client, database);
  });
  pool.on("error", () => undefined); // idle clients: already reported by their own listener
  return pool;
}

// The pool behind each database made by createDb (kysely does not expose it), for its gauges.
const pools = new WeakMap<Kysely<any>, pg.Pool>(); // eslint-disable-line @typescript-eslint/no-explicit-any

export function createDb<DB>(settings: DatabaseSettings): Kysely<DB> {
  const pool = createPool(settings);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/**
 * db_pool_connections{state="in_use"|"idle"} and db_pool_waiting of the pool behind `db` (made
 * by createDb), and db_read_lane_connections{state} of its read lane, read at each scrape.
 * Returns a function that stops reporting it.
 */
export function registerPoolMetrics(registry: Registry, db: Kysely<any>): () => void { // eslint-disable-line @typescript-eslint/no-explicit-any
  const pool = pools.get(db);
  if (!pool) return () => undefined;
  const removeConnections = addScrapeSource(
    registry,
    { name: "db_pool_connections", help: "Connections of the Postgres pool, checked out (in_use) or idle", labelNames: ["state"] },
    () => [
      { labels: { state: "in_use" }, value: pool.totalCount - pool.idleCount },
      { labels: { state: "idle" }, value: pool.idleCount },
    ],
  );
  const removeWaiting = addScrapeSource(
    registry,
    { name: "db_pool_waiting", help: "Queries waiting for a connection of the Postgres pool" },
    () => [{ value: pool.waitingCount }],
  );
  const lane = readLanes.get(pool);
  const removeLane = lane
    ? addScrapeSource(
        registry,
        { name: "db_read_lane_connections", help: "Connections of the pool's read lane (reads while every pooled connection is in use), checked out (in_use) or idle", labelNames: ["state"] },
        () => [
          { labels: { state: "in_use" }, value: lane.totalCount - lane.idleCount },
          { labels: { state: "idle" }, value: lane.idleCount },
        ],
      )
    : () => undefined;
  return () => {
    removeConnections();
    removeWaiting();
    removeLane();
  };
}

/** Applies every pending migration of a service. Throws with the failing migration's error. */
export async function migrateToLatest(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- any service's database
  schema: string,
  migrations: Record<string, Migration>,
): Promise<MigrationResultSet> {
  assertSchemaName(schema);
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
    migrationTableName: "kysely_migration",
    migrationLockTableName: "kysely_migration_lock",
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return result;
}

/** Creates the database named in `url` when it does not exist (local stack and tests). */
export async function ensureDatabase(url: string): Promise<void> {
  const multi = writableHostOf(url, 5_000);
  if (multi) {
    const parsed = parseMultiHostUrl(url)!;
    url = parsed.urlFor(await multi.writable.find());
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  client.on("error", () => undefined); // a lost connection fails the query below instead
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) {
      await client.query(`create database "${name.replaceAll('"', '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created concurrently by another service
      });
    }
  } finally {
    await client.end();
  }
}

/** True when the database answers a trivial query (readiness). */
export async function isDatabaseReachable(db: Kysely<unknown>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** Postgres error code of a failed query, e.g. 23505 for a unique violation. */
export function pgErrorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}
