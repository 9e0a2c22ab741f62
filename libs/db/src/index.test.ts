import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createDb, ensureDatabase, isDatabaseReachable, migrateToLatest, sql, type Generated, type Kysely } from "./index.ts";

// Runs against a real Postgres: DATABASE_ADMIN_URL, else the local server.
const adminUrl = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = `t_db_${randomBytes(4).toString("hex")}`;
const url = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);

describe("db", () => {
  let db: Kysely<{ notes: { id: Generated<number>; body: string } }>;

  beforeAll(async () => {
    await ensureDatabase(url);
    await ensureDatabase(url); // idempotent
    db = createDb({ url, schema: "notes_svc" });
  });

  afterAll(async () => {
    await db.destroy();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
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
