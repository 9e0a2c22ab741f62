// Several hosts in DATABASE_URL (hosts.ts): the URL is read as libpq reads it, a host that does
// not answer is skipped for the next one, and a pooled connection whose server turned read-only
// is dropped. (A real primary and standby with a promotion: tests/faults, postgres-failover.)
import { freePort } from "@support/testkit";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMultiHostUrl } from "./hosts.ts";
import { createDb, createPool, ensureDatabase, sql } from "./index.ts";

describe("parseMultiHostUrl", () => {
  it("reads each host and port, keeps the rest of the URL and drops target_session_attrs", () => {
    const parsed = parseMultiHostUrl("postgres://app:secret@db-a:5433,db-b,[::1]:5434/support?target_session_attrs=read-write&sslmode=require")!;
    expect(parsed.hosts).toEqual([
      { host: "db-a", port: 5433 },
      { host: "db-b", port: 5432 },
      { host: "::1", port: 5434 },
    ]);
    expect(parsed.urlFor(parsed.hosts[1]!)).toBe("postgres://app:secret@db-b:5432/support?sslmode=require");
    expect(parsed.urlFor(parsed.hosts[2]!)).toBe("postgres://app:secret@[::1]:5434/support?sslmode=require");
  });

  it("leaves a URL with one host to node-postgres", () => {
    expect(parseMultiHostUrl("postgres://app@db-a:5432/support")).toBeUndefined();
  });

  it("refuses a session kind the services cannot write to", () => {
    expect(() => parseMultiHostUrl("postgres://app@a,b/support?target_session_attrs=read-only")).toThrow(/read-write/);
  });
});

describe("a pool on several hosts", () => {
  let infra: TestInfra;
  let url: string;

  beforeAll(async () => {
    infra = await createTestInfra();
    // The first host does not answer (nothing listens on that port): the second takes writes.
    const real = new URL(infra.databaseUrl);
    const closed = await freePort();
    url = `postgres://${real.username}${real.password ? `:${real.password}` : ""}@127.0.0.1:${closed},${real.hostname}:${real.port}${real.pathname}?target_session_attrs=read-write`;
  });
  afterAll(() => infra.stop());

  it("connects to the host that answers and takes writes", async () => {
    await ensureDatabase(url);
    const db = createDb<{ t: { n: number } }>({ url, schema: "hosts_svc", connectTimeoutMs: 1000 });
    try {
      await sql`create schema if not exists hosts_svc`.execute(db);
      await sql`create table if not exists hosts_svc.t (n int)`.execute(db);
      await db.insertInto("t").values({ n: 1 }).execute();
      expect(await db.selectFrom("t").select("n").execute()).toEqual([{ n: 1 }]);
    } finally {
      await db.destroy();
    }
  });

  it("drops a pooled connection whose server answers read-only (25006) and opens a new one", async () => {
    const pool = createPool({ url, schema: "hosts_svc", connectTimeoutMs: 1000 });
    try {
      const client = await pool.connect();
      // As on a primary that came back as a standby: writes are refused on this connection.
      await client.query("set default_transaction_read_only = on");
      await expect(client.query("insert into hosts_svc.t values (2)")).rejects.toMatchObject({ code: "25006" });
      client.release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(pool.totalCount).toBe(0);
      await pool.query("insert into hosts_svc.t values (3)");
      expect((await pool.query("select count(*)::int as n from hosts_svc.t where n = 3")).rows).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
