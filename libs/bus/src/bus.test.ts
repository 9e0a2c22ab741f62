import { Writable } from "node:stream";
import { jetstreamManager } from "@nats-io/jetstream";
import { SpanKind, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createDb, ensureDatabase, migrateToLatest, sql, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { installInMemoryTracing } from "@support/tracing/testing";
import {
  ack, addOutboxTraceparent, connectBus, createConsumer, createOutboxRelay, createOutboxTable, ensureStream, registerOutboxMetrics, retryIn, streamNameFor, term, writeEvents,
  type EventEnvelope, type NatsConnection,
} from "./index.ts";

// Real Postgres and NATS, in a database and a stream prefix of this run's own (testkit).
let infra: TestInfra;
let databaseUrl: string;
let prefix: string;
const logger = createLogger({ service: "bus-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("outbox relay and consumer", () => {
  let db: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  let nc: NatsConnection;
  let stream: string;

  beforeAll(async () => {
    infra = await createTestInfra();
    ({ databaseUrl, natsPrefix: prefix } = infra);
    stream = streamNameFor(prefix, "demo");
    await ensureDatabase(databaseUrl);
    db = createDb({ url: databaseUrl, schema: "demo" });
    await migrateToLatest(db, "demo", { "0001_outbox": { up: createOutboxTable }, "0002_outbox_traceparent": { up: addOutboxTraceparent } });
    nc = await connectBus(infra.natsUrl, "bus-test");
    await ensureStream(nc, { name: stream, subjects: [`${prefix}demo.>`] });
    await ensureStream(nc, { name: stream, subjects: [`${prefix}demo.>`] }); // idempotent
  });

  afterAll(async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.drain();
    await db.destroy();
    await infra.stop();
  });

  it("publishes committed events once each and never rolled-back ones", async () => {
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11";
    await db.transaction().execute((trx) =>
      writeEvents(trx, [
        { type: "demo.thing.created", version: 1, companyId, data: { n: 1 } },
        { type: "demo.thing.updated", version: 1, companyId, data: { n: 2 } },
      ]),
    );
    await db
      .transaction()
      .execute(async (trx) => {
        await writeEvents(trx, [{ type: "demo.thing.deleted", version: 1, companyId, data: { n: 99 } }]);
        throw new Error("roll back");
      })
      .catch(() => undefined);

    const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger, pollIntervalMs: 50 });
    relay.start();

    const received: EventEnvelope[] = [];
    const consumer = createConsumer({
      nc, natsPrefix: prefix, stream, durable: "once", filterSubject: `${prefix}demo.>`, logger,
      handle: async (event) => {
        received.push(event);
        return ack;
      },
    });
    await consumer.start();
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(2);
    expect(received.map((e) => e.type)).toEqual(["demo.thing.created", "demo.thing.updated"]);
    expect(received[0]).toMatchObject({ version: 1, companyId, data: { n: 1 } });
    expect(received[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(received[0]!.occurredAt)).not.toBeNaN();

    // A re-publish of the same event (a relay crash after publish, before delete) is dropped.
    const js = (await import("@nats-io/jetstream")).jetstream(nc);
    const duplicate = await js.publish(`${prefix}demo.thing.created`, JSON.stringify(received[0]), { msgID: received[0]!.id });
    expect(duplicate.duplicate).toBe(true);

    // The relay wakes on commit without waiting for its poll.
    await db.transaction().execute((trx) => writeEvents(trx, [{ type: "demo.thing.renamed", version: 1, companyId, data: {} }]));
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(3);
    await new Promise((r) => setTimeout(r, 200));
    expect(received.length).toBe(3);
    expect(await db.selectFrom("outbox").selectAll().execute()).toEqual([]);
    await consumer.stop();
    await relay.stop();
  });

  it("reopens its LISTEN connection after the server ends it and wakes on commit again", async () => {
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a13";
    // A poll far away: only a notification can make the relay publish within the test.
    const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger, pollIntervalMs: 60_000 });
    relay.start();
    // Stopped even when an expectation fails: a relay left running would publish the next tests' rows.
    onTestFinished(() => relay.stop());
    const listeners = () =>
      sql<{ pid: number }>`select pid from pg_stat_activity where application_name = 'outbox-relay-demo' and datname = current_database()`
        .execute(db)
        .then((r) => r.rows);
    await expect.poll(async () => (await listeners()).length, { timeout: 5000 }).toBe(1);
    const [before] = await listeners();
    await sql`select pg_terminate_backend(${before!.pid})`.execute(db);
    await expect
      .poll(async () => (await listeners()).filter((l) => l.pid !== before!.pid).length, { timeout: 10_000 })
      .toBe(1);

    const received: string[] = [];
    const consumer = createConsumer({
      nc, natsPrefix: prefix, stream, durable: "after-listen-loss", filterSubject: `${prefix}demo.listen.>`, logger,
      handle: async (event) => (received.push(event.type), ack),
    });
    await consumer.start();
    await db.transaction().execute((trx) => writeEvents(trx, [{ type: "demo.listen.restored", version: 1, companyId, data: {} }]));
    await expect.poll(() => received, { timeout: 5000 }).toEqual(["demo.listen.restored"]);
    await consumer.stop();
  });

  it("publishes what was committed while its LISTEN connection was down once it listens again, without waiting for a poll", async () => {
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a15";
    const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger, pollIntervalMs: 60_000 });
    relay.start();
    onTestFinished(() => relay.stop());
    const listeners = () =>
      sql<{ pid: number }>`select pid from pg_stat_activity where application_name = 'outbox-relay-demo' and datname = current_database()`
        .execute(db)
        .then((r) => r.rows);
    await expect.poll(async () => (await listeners()).length, { timeout: 5000 }).toBe(1);
    const received: string[] = [];
    const consumer = createConsumer({
      nc, natsPrefix: prefix, stream, durable: "while-not-listening", filterSubject: `${prefix}demo.unheard.>`, logger,
      handle: async (event) => (received.push(event.type), ack),
    });
    await consumer.start();
    onTestFinished(() => consumer.stop());
    // The connection ends; the commit comes before the relay listens again (its backoff is a
    // second), so its notification reaches nobody.
    const [before] = await listeners();
    await sql`select pg_terminate_backend(${before!.pid})`.execute(db);
    await expect.poll(async () => (await listeners()).length, { timeout: 5000 }).toBe(0);
    await db.transaction().execute((trx) => writeEvents(trx, [{ type: "demo.unheard.created", version: 1, companyId, data: {} }]));
    await expect.poll(() => received, { timeout: 10_000 }).toEqual(["demo.unheard.created"]);
  });

  it("reports the outbox backlog at scrape time, back to 0 once the relay has published", async () => {
    const registry = createMetricsRegistry();
    const remove = registerOutboxMetrics(registry, db);
    const scrape = async () => parseMetricsText(await registry.metrics());
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a13";
    const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger });
    await relay.flush();
    let scraped = await scrape();
    expect(scraped.value("support_outbox_pending")).toBe(0);
    expect(scraped.value("support_outbox_oldest_age_seconds")).toBe(0);
    await writeEvents(db, [{ type: "demo.thing.created", version: 1, companyId, data: {} }, { type: "demo.thing.updated", version: 1, companyId, data: {} }]);
    await sql`update outbox set created_at = now() - interval '90 seconds'`.execute(db);
    scraped = await scrape();
    expect(scraped.value("support_outbox_pending")).toBe(2);
    expect(scraped.value("support_outbox_oldest_age_seconds")).toBeGreaterThanOrEqual(90);
    expect(await relay.flush()).toBe(2);
    scraped = await scrape();
    expect(scraped.value("support_outbox_pending")).toBe(0);
    expect(scraped.value("support_outbox_oldest_age_seconds")).toBe(0);
    remove();
  });

  it("redelivers after a retry verdict and stops after term", async () => {
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a12";
    await writeEvents(db, [{ type: "demo.retry.asked", version: 1, companyId, data: {} }, { type: "demo.poison.sent", version: 1, companyId, data: {} }]);
    const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger });
    expect(await relay.flush()).toBe(2);

    const deliveries: Record<string, number> = {};
    const registry = createMetricsRegistry();
    const scrape = async () => parseMetricsText(await registry.metrics());
    const consumer = createConsumer({
      nc, natsPrefix: prefix, stream, durable: "verdicts", filterSubject: `${prefix}demo.>`, logger, registry,
      handle: async (event) => {
        deliveries[event.type] = (deliveries[event.type] ?? 0) + 1;
        if (event.type === "demo.retry.asked") return deliveries[event.type] === 1 ? retryIn(50) : ack;
        if (event.type === "demo.poison.sent") return term("cannot be processed");
        return ack;
      },
    });
    await consumer.start();
    await expect.poll(() => deliveries["demo.retry.asked"], { timeout: 5000 }).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(deliveries["demo.poison.sent"]).toBe(1);
    const labels = { stream, consumer: "verdicts" };
    // Everything was delivered: nothing left to deliver; both gauges say what the consumer info says.
    const scraped = await scrape();
    const info = await (await jetstreamManager(nc)).consumers.info(stream, "verdicts");
    expect(scraped.value("support_jetstream_consumer_pending", labels)).toBe(0);
    expect(info.num_pending).toBe(0);
    expect(scraped.value("support_jetstream_consumer_ack_pending", labels)).toBe(info.num_ack_pending);
    expect(scraped.value("support_jetstream_redeliveries_total", { consumer: "verdicts" })).toBe(1);
    expect(scraped.value("support_jetstream_terminated_total", { consumer: "verdicts" })).toBe(1);
    await consumer.stop();
    // A stopped consumer is no longer asked about.
    expect((await scrape()).find("support_jetstream_consumer_pending")).toEqual([]);
  });
  it("hands a consumer limited to one unacknowledged message its messages in order, pulling once for many of them", async () => {
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a12";
    const count = 60;
    await writeEvents(db, Array.from({ length: count }, (_, i) => ({ type: "demo.ordered.sent", version: 1, companyId, data: { i } })));
    const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger });
    expect(await relay.flush()).toBe(count);

    // Every pull request is a message to the consumer's "next" API subject: count them.
    const pulls = nc.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${stream}.ordered`);
    let pullRequests = 0;
    void (async () => {
      for await (const _ of pulls) pullRequests += 1;
    })();
    const seen: number[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const consumer = createConsumer({
      nc, natsPrefix: prefix, stream, durable: "ordered", filterSubject: `${prefix}demo.ordered.>`, logger, concurrency: 1, maxAckPending: 1,
      handle: async (event) => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        seen.push((event.data as { i: number }).i);
        inFlight -= 1;
        return ack;
      },
    });
    await consumer.start();
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(count);
    await consumer.stop();
    pulls.unsubscribe();
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(mostInFlight).toBe(1);
    // A pull of two messages would have been renewed after nearly every message.
    expect(pullRequests).toBeGreaterThan(0);
    expect(pullRequests).toBeLessThan(6);
  });

  it("stores the writer's traceparent with the row, sends it on as a NATS header and handles in a child span", async () => {
    const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a14";
    // Without a tracer provider: nothing is stored.
    await writeEvents(db, [{ type: "demo.traced.untraced", version: 1, companyId, data: {} }]);
    expect((await db.selectFrom("outbox").select("traceparent").execute()).map((r) => r.traceparent)).toEqual([null]);
    const tracing = await installInMemoryTracing("bus-test");
    try {
      const writer = await trace.getTracer("bus-test").startActiveSpan("write", async (span) => {
        await db.transaction().execute((trx) => writeEvents(trx, [{ type: "demo.traced.created", version: 1, companyId, data: {} }]));
        span.end();
        return span.spanContext();
      });
      const stored = await db.selectFrom("outbox").select(["type", "traceparent"]).where("type", "=", "demo.traced.created").executeTakeFirstOrThrow();
      expect(stored.traceparent).toBe(`00-${writer.traceId}-${writer.spanId}-01`);

      const relay = createOutboxRelay({ db, databaseUrl, schema: "demo", nc, subjectPrefix: prefix, logger });
      expect(await relay.flush()).toBe(2);
      const seen: Record<string, { header: string | undefined; traceId: string | undefined }> = {};
      const consumer = createConsumer({
        nc, natsPrefix: prefix, stream, durable: "traced", filterSubject: `${prefix}demo.traced.>`, logger,
        handle: async (event, message) => {
          seen[event.type] = { header: message.headers?.get("traceparent") || undefined, traceId: trace.getActiveSpan()?.spanContext().traceId };
          return ack;
        },
      });
      await consumer.start();
      await expect.poll(() => Object.keys(seen).length, { timeout: 5000 }).toBe(2);
      await consumer.stop();

      const spans = tracing.spans();
      const publish = spans.find((s) => s.kind === SpanKind.PRODUCER && s.name === `publish ${prefix}demo.traced.created`)!;
      expect(publish.spanContext().traceId).toBe(writer.traceId);
      expect(publish.parentSpanContext?.spanId).toBe(writer.spanId);
      expect(seen["demo.traced.created"]!.header).toBe(`00-${writer.traceId}-${publish.spanContext().spanId}-01`);
      expect(seen["demo.traced.created"]!.traceId).toBe(writer.traceId);
      const processed = spans.find((s) => s.kind === SpanKind.CONSUMER && s.name === `process ${prefix}demo.traced.created`)!;
      expect(processed.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
      expect(processed.attributes).toMatchObject({ "messaging.consumer.group.name": "traced", "messaging.verdict": "ack" });
      // An event written outside a trace is published in a trace of its own.
      const untraced = spans.find((s) => s.name === `publish ${prefix}demo.traced.untraced`)!;
      expect(untraced.parentSpanContext).toBeUndefined();
      expect(seen["demo.traced.untraced"]!.traceId).toBe(untraced.spanContext().traceId);
      // Queries inside the writer's span are spans of it, with the SQL text and no values.
      const insert = spans.find((s) => s.attributes["db.system"] === "postgresql" && /insert into "?outbox"?/.test(String(s.attributes["db.statement"])))!;
      expect(insert.spanContext().traceId).toBe(writer.traceId);
      expect(String(insert.attributes["db.statement"])).not.toContain(companyId);
    } finally {
      await tracing.uninstall();
    }
  });
});
