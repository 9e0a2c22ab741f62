import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createDb, ensureDatabase, sql, type Kysely } from "./index.ts";
import { PLANNED_EACH_TIME, StatementNames } from "./prepared-statements.ts";

// Runs against a real Postgres, in a database of this run's own (testkit).
let infra: TestInfra;
let url: string;

interface Notes {
  notes: { id: number; body: string };
}

/** The statements prepared on the connection this query runs on (a pool of one connection). */
async function preparedOn(db: Kysely<Notes>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements order by prepare_time`.execute(db);
  return rows.map((r) => r.statement);
}

describe("named statements", () => {
  let setup: Kysely<Notes>;

  beforeAll(async () => {
    infra = await createTestInfra();
    url = infra.databaseUrl;
    await ensureDatabase(url);
    setup = createDb<Notes>({ url, schema: "prepared_svc", preparedStatementsMax: 0 });
    await sql`create schema if not exists prepared_svc`.execute(setup);
    await sql`create table if not exists notes (id int primary key, body text not null)`.execute(setup);
    await sql`insert into notes values (1, 'one'), (2, 'two') on conflict do nothing`.execute(setup);
  });

  afterAll(async () => {
    await setup.destroy();
    await infra.stop();
  });

  it("parses a repeated statement once per connection and answers as before", async () => {
    const db = createDb<Notes>({ url, schema: "prepared_svc", maxConnections: 1 });
    try {
      for (const id of [1, 2, 1]) {
        const row = await db.selectFrom("notes").select(["id", "body"]).where("id", "=", id).executeTakeFirstOrThrow();
        expect(row).toEqual({ id, body: id === 1 ? "one" : "two" });
      }
      const prepared = await preparedOn(db);
      // One statement for the three selects (and the catalogue query itself, also named).
      expect(prepared.filter((s) => s.includes('from "notes"'))).toEqual(['select "id", "body" from "notes" where "id" = $1']);
    } finally {
      await db.destroy();
    }
  });

  it("leaves results of * and transaction control unnamed, and names no more texts than its bound", async () => {
    const db = createDb<Notes>({ url, schema: "prepared_svc", maxConnections: 1, preparedStatementsMax: 2 });
    try {
      await db.transaction().execute(async (trx) => {
        await trx.selectFrom("notes").selectAll().where("id", "=", 1).execute();
        await trx.selectFrom("notes").selectAll("notes").where("id", "=", 1).execute();
        await trx.updateTable("notes").set({ body: "one" }).where("id", "=", 1).returningAll().execute();
        await trx.selectFrom("notes").select((eb) => eb.fn.countAll().as("n")).execute(); // count(*) is a single column
      });
      await db.selectFrom("notes").select("body").where("id", "=", 2).execute(); // the second name
      await db.selectFrom("notes").select("id").where("id", "=", 2).execute(); // past the bound
      const prepared = await preparedOn(db);
      expect(prepared).toEqual(['select count(*) as "n" from "notes"', 'select "body" from "notes" where "id" = $1']);
    } finally {
      await db.destroy();
    }
    const off = createDb<Notes>({ url, schema: "prepared_svc", maxConnections: 1, preparedStatementsMax: 0 });
    try {
      await off.selectFrom("notes").select("body").where("id", "=", 2).execute();
      expect(await preparedOn(off)).toEqual([]);
    } finally {
      await off.destroy();
    }
  });

  it("prepares a statement again when a migration changed its result type", async () => {
    await sql`create table if not exists shapes (id int primary key, label varchar(20) not null)`.execute(setup);
    await sql`insert into shapes values (1, 'a') on conflict do nothing`.execute(setup);
    const db = createDb<{ shapes: { id: number; label: string } }>({ url, schema: "prepared_svc", maxConnections: 1 });
    const label = () => db.selectFrom("shapes").select("label").where("id", "=", 1).executeTakeFirstOrThrow();
    try {
      expect(await label()).toEqual({ label: "a" });
      // A deploy's migration changes the column under the prepared statement: its result type.
      await sql`alter table shapes alter column label type varchar(40)`.execute(setup);
      // Outside a transaction, the statement is prepared anew and sent again: the caller sees nothing.
      expect(await label()).toEqual({ label: "a" });

      await sql`alter table shapes alter column label type text`.execute(setup);
      // Inside one, the unit of work fails as on any error; its retry runs on the new statement.
      const failed = await db.transaction().execute(async (trx) => {
        await trx.selectFrom("shapes").select("label").where("id", "=", 1).execute();
      }).then(() => undefined, (error: unknown) => error);
      expect(failed).toMatchObject({ code: "0A000" });
      await db.transaction().execute(async (trx) => {
        expect(await trx.selectFrom("shapes").select("label").where("id", "=", 1).execute()).toEqual([{ label: "a" }]);
      });
    } finally {
      await db.destroy();
    }
  });

  it("names a text by its first keyword and its result", () => {
    const names = new StatementNames(10);
    expect(names.nameOf("select a from t where b = $1")).toBe("s1");
    expect(names.nameOf("select a from t where b = $1")).toBe("s1");
    expect(names.nameOf(' with x as (insert into t (a) values ($1) returning "id") select pg_notify($2, $3)')).toBe("s2");
    expect(names.nameOf("insert into t (a) values ($1)")).toBe("s3");
    for (const unnamed of [
      "begin",
      "commit",
      "set local lock_timeout = '1s'",
      "create table t (a int)",
      "select * from t",
      'select "t".* from "t"',
      "select t.*, 1 from t",
      "select a, * from t",
      "select distinct * from t",
      'select distinct "t".* from "t"',
      "update t set a = $1 returning *",
      "with u as (update t set a = 1 returning *) select 1",
      `select ${PLANNED_EACH_TIME} id from t where v @@ $1`,
      `${PLANNED_EACH_TIME} select id from t where v @@ $1`,
    ]) {
      expect(names.nameOf(unnamed), unnamed).toBeUndefined();
      expect(names.nameOf(unnamed), `${unnamed} (asked again)`).toBeUndefined();
    }
    expect(names.nameOf("select count(*) from t")).toBe("s4");
    expect(names.nameOf("select a * 2 from t")).toBe("s5");
  });
});
