// The pool's waiting line for calls with a caller: a query whose caller's deadline passed while it
// waited never reaches the database, one behind a full line is refused at once, and work without
// a caller waits as before; the queries of reads take the read lane while the pool is busy. A
// pool of one connection, held by a transaction the test ends.
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { BUSY_MESSAGE, isAppError } from "@support/errors";
import { isDependencyUnavailable } from "@support/rpc";
import { withRequestContext } from "@support/logging";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, migrateToLatest, sql, type Generated, type Kysely } from "./index.ts";

interface Database {
  entries: { id: Generated<number>; body: string };
}

let infra: TestInfra;
let db: Kysely<Database>;

beforeAll(async () => {
  infra = await createTestInfra();
  db = createDb<Database>({ url: infra.databaseUrl, schema: "waiting_line", maxConnections: 1, maxWaiting: 1 });
  await migrateToLatest(db as Kysely<unknown>, "waiting_line", {
    "2026_12_07_00_00_00_entries": {
      up: async (m: Kysely<unknown>) => {
        await m.schema.createTable("entries").addColumn("id", "serial", (c) => c.primaryKey()).addColumn("body", "text", (c) => c.notNull()).execute();
      },
    },
  });
});

afterAll(async () => {
  await db?.destroy();
  await infra?.stop();
});

/** Holds the pool's one connection until the returned function is called. */
async function holdTheConnection(): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const transaction = db.transaction().execute(async (trx) => {
    await sql`select 1`.execute(trx);
    holding();
    await released;
  });
  await held;
  return async () => {
    release();
    await transaction;
  };
}

const asCaller = <T>(deadlineInMs: number, fn: () => Promise<T>) => withRequestContext({ deadline: Date.now() + deadlineInMs }, fn);
const asReader = <T>(deadlineInMs: number, fn: () => Promise<T>) => withRequestContext({ deadline: Date.now() + deadlineInMs, readOnly: true }, fn);
const insert = (body: string) => db.insertInto("entries").values({ body }).execute();
const bodies = async () => (await db.selectFrom("entries").select("body").orderBy("id").execute()).map((row) => row.body);

describe("the pool's waiting line", () => {
  it("fails a caller's query whose deadline passed while it waited, without running it", async () => {
    const release = await holdTheConnection();
    const late = asCaller(100, () => insert("too late")).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await release();
    const error = await late;
    expect(isAppError(error) && error.code).toBe("deadline_exceeded");
    expect(await bodies()).not.toContain("too late");
    // A query with time left runs once the connection is free.
    await asCaller(5_000, () => insert("in time"));
    expect(await bodies()).toContain("in time");
  });

  it("refuses a caller's query at once behind a full line, and lets work without a caller wait", async () => {
    const release = await holdTheConnection();
    const waiting = asCaller(5_000, () => insert("first in line"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const refused = await asCaller(5_000, () => insert("behind a full line")).catch((error: unknown) => error);
    expect(performance.now() - started).toBeLessThan(50);
    expect(isAppError(refused) && { code: refused.code, message: refused.message }).toEqual({ code: "unavailable", message: BUSY_MESSAGE });
    // A relay or a sweep has no caller: it waits, whatever the line.
    const background = insert("no caller");
    await release();
    await Promise.all([waiting, background]);
    const stored = await bodies();
    expect(stored).toEqual(expect.arrayContaining(["first in line", "no caller"]));
    expect(stored).not.toContain("behind a full line");
  });
});

describe("the connect timeout", () => {
  it("bounds opening a connection, not a caller's wait behind a busy pool", async () => {
    const short = createDb<Database>({ url: infra.databaseUrl, schema: "waiting_line", maxConnections: 1, connectTimeoutMs: 200 });
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const holding = short.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await released;
      });
      const waiting = asCaller(10_000, () => short.insertInto("entries").values({ body: "waited past the connect timeout" }).execute());
      // Four times the connect timeout in the line: the caller still waits, so the query does.
      await new Promise((resolve) => setTimeout(resolve, 800));
      release();
      await holding;
      await waiting;
      expect(await bodies()).toContain("waited past the connect timeout");
    } finally {
      await short.destroy();
    }
  });

  it("fails a query within it when the server accepts the connection and never answers, as unavailable", async () => {
    const silent = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const mute = createDb<Database>({ url: `postgres://postgres@127.0.0.1:${port}/none`, schema: "waiting_line", connectTimeoutMs: 300 });
    try {
      const started = performance.now();
      const error = await asCaller(10_000, () => sql`select 1`.execute(mute)).catch((e: unknown) => e);
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(isDependencyUnavailable(error), String(error)).toBe(true);
    } finally {
      await mute.destroy();
      silent.close();
    }
  });
});

describe("the read lane", () => {
  const settled = (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 300))]);

  it("answers a read's query while writes hold every pooled connection, and keeps writers waiting", async () => {
    const release = await holdTheConnection();
    try {
      const started = performance.now();
      const read = await asReader(5_000, () => db.selectFrom("entries").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow());
      expect(read.n).toBeGreaterThanOrEqual(0);
      expect(performance.now() - started).toBeLessThan(250);
      // A write of a caller still waits for the pool's own connection.
      const write = asCaller(5_000, () => insert("a write waits"));
      expect(await settled(write)).toBe(false);
      await release();
      await write;
      expect(await bodies()).toContain("a write waits");
    } finally {
      await release();
    }
  });

  it("is not there with a lane of 0: a read waits like any query", async () => {
    const laneless = createDb<Database>({ url: infra.databaseUrl, schema: "waiting_line", maxConnections: 1, readLaneConnections: 0 });
    try {
      let free!: () => void;
      const freed = new Promise<void>((resolve) => (free = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const transaction = laneless.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        holding();
        await freed;
      });
      await held;
      const read = asReader(5_000, () => laneless.selectFrom("entries").select("id").execute());
      expect(await settled(read)).toBe(false);
      free();
      await transaction;
      await read;
    } finally {
      await laneless.destroy();
    }
  });
});
