import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, ensureDatabase, migrateToLatest, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { createTestInfra, startPostgresServer, withDatabase, type PostgresServer, type TestInfra } from "@support/testkit";
import { ack, addOutboxTraceparent, connectBus, createConsumer, createOutboxRelay, createOutboxTable, ensureStream, streamNameFor, writeEvents, type NatsConnection } from "./index.ts";

// A Postgres of this test's own (initdb in a temp dir from the local binaries), stopped with
// `pg_ctl stop -m fast` and started again while the relay runs and writes go on: the machine's
// shared Postgres is never touched. NATS is the run's usual one, under the run's own prefix.
const logger = createLogger({ service: "bus-fault-test", destination: new Writable({ write: (_c, _e, done) => done() }) });
const COMPANY = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a21";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("outbox relay across a Postgres restart", () => {
  let infra: TestInfra;
  let dataDir: string;
  let pg: PostgresServer;
  let nc: NatsConnection;
  let stream: string;

  beforeAll(async () => {
    infra = await createTestInfra();
    dataDir = mkdtempSync(join(tmpdir(), "bus-fault-pg-"));
    pg = await startPostgresServer({ dataDir });
    nc = await connectBus(infra.natsUrl, "bus-fault-test");
    stream = streamNameFor(infra.natsPrefix, "restart");
    await ensureStream(nc, { name: stream, subjects: [`${infra.natsPrefix}restart.>`] });
  }, 120_000);

  afterAll(async () => {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
    await nc.drain();
    await pg.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    await infra.stop();
  }, 60_000);

  it("fails only the transactions cut by the restart, never the process, and publishes every committed event once", async () => {
    const url = withDatabase(pg.adminUrl, "faults");
    await ensureDatabase(url);
    const db: Kysely<any> = createDb({ url, schema: "restart", maxConnections: 4 }); // eslint-disable-line @typescript-eslint/no-explicit-any
    await migrateToLatest(db, "restart", { "0001_outbox": { up: createOutboxTable }, "0002_outbox_traceparent": { up: addOutboxTraceparent } });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);

    const relay = createOutboxRelay({ db, databaseUrl: url, schema: "restart", nc, subjectPrefix: infra.natsPrefix, logger, pollIntervalMs: 100 });
    const received = new Map<string, number>();
    const consumer = createConsumer({
      nc, natsPrefix: infra.natsPrefix, stream, durable: "restart", filterSubject: `${infra.natsPrefix}restart.>`, logger,
      handle: async (event) => (received.set(event.id, (received.get(event.id) ?? 0) + 1), ack),
    });
    try {
      relay.start();
      await consumer.start();

      // Writers: one event per transaction, as fast as they go. An id counts as committed
      // only when the commit was acknowledged.
      const committed = new Set<string>();
      let failedWrites = 0;
      let writing = true;
      const writer = async () => {
        while (writing) {
          try {
            const [envelope] = await db.transaction().execute((trx) => writeEvents(trx, [{ type: "restart.thing.created", version: 1, companyId: COMPANY, data: {} }]));
            committed.add(envelope!.id);
          } catch {
            failedWrites += 1;
            await sleep(50);
          }
        }
      };
      const writers = [writer(), writer()];
      // A transaction that holds its connection across the restart (as the relay used to
      // while it waited for NATS): it fails, nothing else does.
      const held = db.transaction().execute(async (trx) => {
        await writeEvents(trx, [{ type: "restart.thing.held", version: 1, companyId: COMPANY, data: {} }]);
        await sleep(1500);
        await writeEvents(trx, [{ type: "restart.thing.held", version: 1, companyId: COMPANY, data: {} }]);
      });
      // Its failure is taken at once: it rejects while Postgres is still down, long before the
      // assertion below, and a rejection nobody has taken yet is reported as unhandled.
      const heldOutcome = held.then(
        () => "committed",
        (error: unknown) => error,
      );

      await sleep(500);
      const beforeRestart = committed.size;
      await pg.stop();
      await sleep(500);
      pg = await startPostgresServer({ dataDir, port: pg.port });
      expect(await heldOutcome).toBeInstanceOf(Error);
      // Writes succeed again by themselves.
      await expect.poll(() => committed.size, { timeout: 20_000 }).toBeGreaterThan(beforeRestart + 20);
      writing = false;
      await Promise.all(writers);

      expect(failedWrites).toBeGreaterThan(0); // the restart did cut writes
      expect(uncaught).toEqual([]);
      // Every committed event reaches NATS, once.
      await expect.poll(() => [...committed].filter((id) => !received.has(id)).length, { timeout: 30_000 }).toBe(0);
      await sleep(300);
      expect([...received.values()].filter((count) => count !== 1)).toEqual([]);
      await expect.poll(async () => (await db.selectFrom("outbox").select("seq").execute()).length, { timeout: 10_000 }).toBe(0);
    } finally {
      process.off("uncaughtException", onUncaught);
      await consumer.stop();
      await relay.stop();
      await db.destroy();
    }
  }, 120_000);
});
