import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDependencyUnavailable } from "@support/rpc";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import { createDb, ensureDatabase, isDatabaseReachable, migrateToLatest, registerPoolMetrics, sql, type Generated, type Kysely } from "./index.ts";

// Runs against a real Postgres, in a database of this run's own (testkit).
let infra: TestInfra;
let url: string;

describe("db", () => {
  let db: Kysely<{ notes: { id: Generated<number>; body: string } }>;

  beforeAll(async () => {
    infra = await createTestInfra();
    url = infra.databaseUrl;
    await ensureDatabase(url);
    await ensureDatabase(url); // idempotent
    db = createDb({ url, schema: "notes_svc" });
  });

  afterAll(async () => {
    await db.destroy();
    await infra.stop();
  });

  it("migrates inside the service schema and keeps its migration table there", async () => {
    const migrations = {
      "2026_11_22_00_00_00_create_notes": {
        up: async (m: Kysely<unknown>) => {
          await m.schema.createTable("notes").addColumn("id", "serial", (c) => c.primaryKey()).addColumn("body", "text").execute();
        },
      },
    };
    const first = await migrateToLatest(db as Kysely<unknown>, "notes_svc", migrations);
    expect(first.results?.map((r) => r.status)).toEqual(["Success"]);
    const second = await migrateToLatest(db as Kysely<unknown>, "notes_svc", migrations);
    expect(second.results).toEqual([]);

    const tables = await sql<{ table_schema: string; table_name: string }>`
      select table_schema, table_name from information_schema.tables
      where table_schema = 'notes_svc' order by table_name`.execute(db);
    expect(tables.rows.map((r) => r.table_name)).toEqual(["kysely_migration", "kysely_migration_lock", "notes"]);

    await db.insertInto("notes").values({ body: "hello" }).execute();
    expect(await db.selectFrom("notes").select("body").execute()).toEqual([{ body: "hello" }]);
    expect(await isDatabaseReachable(db as Kysely<unknown>)).toBe(true);
  });

  it("fails only the unit of work when the server ends a connection checked out inside a transaction", async () => {
    const reported: Error[] = [];
    const victim = createDb<{ notes: { id: Generated<number>; body: string } }>({
      url, schema: "notes_svc", maxConnections: 1, onConnectionError: (error) => reported.push(error),
    });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      // The transaction holds its connection between two statements (as a relay waiting for
      // NATS did) when the server terminates it, the way a Postgres shutdown does (57P01).
      const work = victim.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(db);
        await expect.poll(() => reported.length, { timeout: 5000 }).toBeGreaterThan(0);
        await trx.insertInto("notes").values({ body: "never committed" }).execute();
      });
      const error = await work.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(isDependencyUnavailable(error) || isDependencyUnavailable(reported[0])).toBe(true);
      expect(uncaught).toEqual([]);
      // The pool dropped the broken connection: the next unit of work runs on a new one.
      expect(await isDatabaseReachable(victim as Kysely<unknown>)).toBe(true);
      expect(await db.selectFrom("notes").select("body").where("body", "=", "never committed").execute()).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
      await victim.destroy();
    }
  });

  it("reports its pool at scrape time: connections in use and idle, and queries waiting", async () => {
    const small = createDb({ url, schema: "notes_svc", maxConnections: 1 });
    const registry = createMetricsRegistry();
    const remove = registerPoolMetrics(registry, small);
    const scrape = async () => {
      const scraped = parseMetricsText(await registry.metrics());
      return [scraped.value("db_pool_connections", { state: "in_use" }), scraped.value("db_pool_connections", { state: "idle" }), scraped.value("db_pool_waiting")];
    };
    try {
      expect(await scrape()).toEqual([0, 0, 0]);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const transaction = small.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        inside();
        await held;
      });
      await entered;
      // The only connection is held: a second query waits for it.
      const waiting = sql`select 1`.execute(small);
      await expect.poll(scrape, { timeout: 5000 }).toEqual([1, 0, 1]);
      release();
      await transaction;
      await waiting;
      expect(await scrape()).toEqual([0, 1, 0]);
    } finally {
      remove();
      await small.destroy();
    }
    expect(parseMetricsText(await registry.metrics()).find("db_pool_waiting")).toEqual([{ name: "db_pool_waiting", labels: {}, value: 0 }]);
  });

  it("refuses a schema name that could inject SQL", () => {
    expect(() => createDb({ url, schema: "x; drop table y" })).toThrow(/Invalid schema/);
  });
});
