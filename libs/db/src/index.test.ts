import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createDb, ensureDatabase, isDatabaseReachable, migrateToLatest, sql, type Generated, type Kysely } from "./index.ts";

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

  it("refuses a schema name that could inject SQL", () => {
    expect(() => createDb({ url, schema: "x; drop table y" })).toThrow(/Invalid schema/);
  });
});
