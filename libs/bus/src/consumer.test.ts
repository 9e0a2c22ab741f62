// No message stops a consumer: what cannot be read (not JSON, not an envelope, an unknown
// envelope version), what fails past the bound and what the handler gives up on lands in the
// dead-letter store, is counted, and the messages behind it flow on, even through a consumer
// holding one message at a time. Real NATS, under this run's own prefix (testkit).
import { Writable } from "node:stream";
import { jetstream, jetstreamManager, type JetStreamClient } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { createMetricsRegistry, parseMetricsText, type Registry } from "@support/metrics";
import { createTestInfra, type TestInfra } from "@support/testkit";
import {
  ack, checkEnvelope, connectBus, createConsumer, createEnvelope, deadLetterStreamName, ensureDeadLetterStream, ensureStream, listDeadLetters, coreEventReader, replayDeadLetter,
  streamNameFor, term, type Consumer, type EventEnvelope, type NatsConnection, type ContractRead, type CoreRead,
} from "./index.ts";

let infra: TestInfra;
let prefix: string;
let nc: NatsConnection;
let js: JetStreamClient;
let stream: string;
const logger = process.env.TEST_LOG ? createLogger({ service: "consumer-test" }) : createLogger({ service: "consumer-test", destination: new Writable({ write: (_c, _e, done) => done() }) });
const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11";
const started: Consumer[] = [];

beforeAll(async () => {
  infra = await createTestInfra();
  prefix = infra.natsPrefix;
  nc = await connectBus(infra.natsUrl, "consumer-test");
  js = jetstream(nc);
  stream = streamNameFor(prefix, "poison");
  await ensureStream(nc, { name: stream, subjects: [`${prefix}poison.>`] });
});

afterAll(async () => {
  for (const consumer of started) await consumer.stop();
  await nc?.drain();
  await infra?.stop();
});

/** An envelope as the outbox relay publishes it (Nats-Msg-Id = event id). */
async function publishEvent(type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<EventEnvelope> {
  const envelope = { ...createEnvelope({ type, version: 1, companyId, data }), ...extra };
  await js.publish(`${prefix}${type}`, JSON.stringify(envelope), { msgID: envelope.id });
  return envelope;
}

async function start(
  durable: string,
  filter: string,
  handle: (event: EventEnvelope) => Promise<ReturnType<typeof term> | typeof ack>,
  options: { maxDeliveries?: number; registry?: Registry; read?: typeof demoContract } = {},
): Promise<Consumer> {
  const consumer = createConsumer({
    nc, natsPrefix: prefix, stream, durable, filterSubject: `${prefix}${filter}`, logger,
    // One message at a time, as webhooks' ordered consumers: a stuck message would stop all.
    concurrency: 1, maxAckPending: 1, ackWaitMs: 5_000, retryDelayMs: 10,
    registry: options.registry, maxDeliveries: options.maxDeliveries, read: options.read, handle,
  });
  await consumer.start();
  started.push(consumer);
  return consumer;
}

/**
 * A stand-in for the event contract: types ending in `.unknown` are not defined, only version 1
 * is read, and `data.n` must be a number.
 */
function demoContract(envelope: EventEnvelope): ContractRead<EventEnvelope> {
  if (envelope.type.endsWith(".unknown")) return { unknownType: envelope.type };
  if (envelope.version !== 1) return { reason: "unknown_version", detail: `${envelope.type} v${envelope.version}: this release reads 1` };
  if (typeof envelope.data.n !== "number") return { reason: "invalid_data", detail: "data/n must be number" };
  return { event: envelope };
}

const scrape = async (registry: Registry) => parseMetricsText(await registry.metrics());

describe("the envelope", () => {
  it("carries the version it was written with, is version 1 without one, and refuses a version that is not a positive integer and other shapes", () => {
    const written = createEnvelope({ type: "demo.thing.created", version: 1, companyId, data: {} });
    expect(written.version).toBe(1);
    expect(createEnvelope({ type: "demo.thing.created", version: 3, companyId, data: {} }).version).toBe(3);
    expect(() => createEnvelope({ type: "demo.thing.created", version: 0, companyId, data: {} })).toThrow("positive integer");
    const { version: _, ...old } = written;
    expect(checkEnvelope(old)).toEqual({ envelope: { ...old, version: 1 } });
    // Which versions of a type a consumer reads is the contract's (its `read`), not the envelope's.
    expect(checkEnvelope({ ...old, version: 2 })).toEqual({ envelope: { ...old, version: 2 } });
    expect(checkEnvelope({ ...old, version: "1" })).toMatchObject({ reason: "unknown_version" });
    expect(checkEnvelope({ ...old, version: 1.5 })).toMatchObject({ reason: "unknown_version" });
    expect(checkEnvelope({ ...old, data: null })).toMatchObject({ reason: "not_envelope" });
    expect(checkEnvelope({ ...old, companyId: 7 })).toMatchObject({ reason: "not_envelope" });
    expect(checkEnvelope([old])).toMatchObject({ reason: "not_envelope" });
  });
});

describe("a consumer meeting bad messages", () => {
  it("dead-letters a non-JSON message, a non-envelope, an unknown version and invalid data, acknowledges an unknown type, counts them, and goes on with the next messages", async () => {
    const registry = createMetricsRegistry();
    const seen: string[] = [];
    await publishEvent("poison.read.first", { n: 1 });
    const traced = natsHeaders();
    traced.set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    await js.publish(`${prefix}poison.read.garbage`, "this is not json {", { headers: traced });
    await js.publish(`${prefix}poison.read.shape`, JSON.stringify({ hello: "world" }));
    const future = await publishEvent("poison.read.future", { n: 2 }, { version: 2 });
    await publishEvent("poison.read.invalid", { n: "two" });
    await publishEvent("poison.read.unknown", { n: 2 });
    // An event written before versions existed (no `version`) is version 1.
    const { version: _, ...unversioned } = createEnvelope({ type: "poison.read.old", version: 1, companyId, data: { n: 3 } });
    await js.publish(`${prefix}poison.read.old`, JSON.stringify(unversioned), { msgID: unversioned.id });
    await publishEvent("poison.read.last", { n: 4 });

    await start("reader", "poison.read.>", async (event) => (seen.push(`${event.type}@${event.version}`), ack), { registry, read: demoContract });
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(["poison.read.first@1", "poison.read.old@1", "poison.read.last@1"]);

    const { deadLetters, total } = await listDeadLetters(nc, prefix, { consumer: "reader" });
    expect(total).toBe(4);
    expect(deadLetters.map((d) => [d.subject, d.reason])).toEqual([
      [`${prefix}poison.read.garbage`, "unparseable"],
      [`${prefix}poison.read.shape`, "not_envelope"],
      [`${prefix}poison.read.future`, "unknown_version"],
      [`${prefix}poison.read.invalid`, "invalid_data"],
    ]);
    expect(deadLetters[0]).toMatchObject({ consumer: "reader", stream, streamSequence: expect.any(Number), deliveries: 1, body: "this is not json {", messageId: null });
    expect(deadLetters[0]!.headers).toEqual({ traceparent: ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"] });
    expect(Date.parse(deadLetters[0]!.deadLetteredAt)).not.toBeNaN();
    expect(deadLetters[2]).toMatchObject({ messageId: future.id, detail: expect.stringContaining("v2") });
    expect(JSON.parse(deadLetters[2]!.body!)).toEqual(future);

    const scraped = await scrape(registry);
    for (const reason of ["unparseable", "not_envelope", "unknown_version", "invalid_data"]) {
      expect(scraped.value("support_events_dead_lettered_total", { consumer: "reader", reason }), reason).toBe(1);
    }
    expect(scraped.value("support_jetstream_terminated_total", { consumer: "reader" })).toBe(4);
    // Nothing waits to be acknowledged: the bad ones were terminated, not left pending.
    const info = await (await jetstreamManager(nc)).consumers.info(stream, "reader");
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it("dead-letters a message whose handler fails past the bound, and one the handler gives up on", async () => {
    const registry = createMetricsRegistry();
    const attempts: Record<string, number> = {};
    const handled: string[] = [];
    await publishEvent("poison.fail.always", {});
    await publishEvent("poison.fail.rejected", {});
    await publishEvent("poison.fail.after", {});
    await start(
      "failing",
      "poison.fail.>",
      async (event) => {
        attempts[event.type] = (attempts[event.type] ?? 0) + 1;
        if (event.type === "poison.fail.always") throw new Error("the database is gone");
        if (event.type === "poison.fail.rejected") return term("no such company");
        handled.push(event.type);
        return ack;
      },
      { maxDeliveries: 3, registry },
    );
    await expect.poll(() => handled, { timeout: 10_000 }).toEqual(["poison.fail.after"]);
    expect(attempts).toEqual({ "poison.fail.always": 3, "poison.fail.rejected": 1, "poison.fail.after": 1 });
    const { deadLetters } = await listDeadLetters(nc, prefix, { consumer: "failing" });
    expect(deadLetters.map((d) => [d.subject, d.reason, d.deliveries])).toEqual([
      [`${prefix}poison.fail.always`, "failed", 3],
      [`${prefix}poison.fail.rejected`, "rejected", 1],
    ]);
    expect(deadLetters[0]!.detail).toContain("the database is gone");
    expect(deadLetters[1]!.detail).toBe("no such company");
    const scraped = await scrape(registry);
    expect(scraped.value("support_events_dead_lettered_total", { consumer: "failing", reason: "failed" })).toBe(1);
    expect(scraped.value("support_events_dead_lettered_total", { consumer: "failing", reason: "rejected" })).toBe(1);
  });

  it("keeps retrying a message while the dead-letter store cannot take it, and stores it once it can", async () => {
    const registry = createMetricsRegistry();
    const seen: string[] = [];
    await start("store-down", "poison.down.>", async (event) => (seen.push(event.type), ack), { registry });
    // The store disappears (NATS refuses every write to it), then a bad message comes.
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(deadLetterStreamName(prefix));
    await js.publish(`${prefix}poison.down.garbage`, "\u0000\u0001 not json");
    await publishEvent("poison.down.next", {});
    await expect.poll(async () => (await scrape(registry)).value("support_jetstream_redeliveries_total", { consumer: "store-down" }), { timeout: 10_000 }).toBeGreaterThan(2);
    // Not terminated (it would be lost), so the one-at-a-time consumer is still on it.
    expect(seen).toEqual([]);
    expect((await scrape(registry)).value("support_events_dead_lettered_total", { consumer: "store-down", reason: "unparseable" })).toBe(0);

    await ensureDeadLetterStream(nc, prefix);
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(["poison.down.next"]);
    const { deadLetters } = await listDeadLetters(nc, prefix, { consumer: "store-down" });
    expect(deadLetters.map((d) => [d.reason, d.body])).toEqual([["unparseable", "\u0000\u0001 not json"]]);
    expect((await scrape(registry)).value("support_events_dead_lettered_total", { consumer: "store-down", reason: "unparseable" })).toBe(1);
  });

  it("replays a dead letter to its subject within the stream's duplicate window, and the consumer receives it again", async () => {
    let reject = true;
    const seen: string[] = [];
    await start("replayed", "poison.replay.>", async (event) => {
      if (reject) return term("not yet");
      seen.push(event.id);
      return ack;
    });
    const event = await publishEvent("poison.replay.sent", {});
    await expect.poll(async () => (await listDeadLetters(nc, prefix, { consumer: "replayed" })).total, { timeout: 10_000 }).toBe(1);
    const [deadLetter] = (await listDeadLetters(nc, prefix, { consumer: "replayed" })).deadLetters;
    reject = false;
    // The original carried Nats-Msg-Id = event id moments ago: the same id would be dropped.
    const result = await replayDeadLetter(nc, prefix, deadLetter!.seq);
    expect(result).toMatchObject({ replayed: { stream }, deleted: true });
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual([event.id]);
    expect((await listDeadLetters(nc, prefix, { consumer: "replayed" })).total).toBe(0);
  });
});

describe("a consumer stopping", () => {
  it("hands every message it fetched and did not handle back to the server at once, so the next consumer gets them long before AckWait", async () => {
    const events = [];
    for (let n = 0; n < 6; n++) events.push(await publishEvent("poison.stopping.sent", { n }));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handledBefore: string[] = [];
    // Two handlers held open and a server limit of four unacknowledged messages: two more wait
    // in the client's buffer when the consumer stops.
    const settings = { nc, natsPrefix: prefix, stream, durable: "stopping", filterSubject: `${prefix}poison.stopping.>`, logger, concurrency: 2, maxAckPending: 4, ackWaitMs: 30_000 };
    const first = createConsumer({
      ...settings,
      handle: async (event) => {
        handledBefore.push(event.id);
        await gate;
        return ack;
      },
    });
    await first.start();
    const jsm = await jetstreamManager(nc);
    await expect.poll(async () => (await jsm.consumers.info(stream, "stopping")).num_ack_pending, { timeout: 5000 }).toBe(4);
    expect(handledBefore).toHaveLength(2);
    const stopping = first.stop();
    setTimeout(release, 200);
    await stopping;
    const handledAfter: string[] = [];
    const second = createConsumer({
      ...settings,
      handle: async (event) => {
        handledAfter.push(event.id);
        return ack;
      },
    });
    await second.start();
    started.push(second);
    // Within a few seconds, not the 30 s AckWait of a message left in the stopped client.
    await expect.poll(() => handledAfter.length, { timeout: 5000 }).toBe(4);
    expect([...handledBefore, ...handledAfter].sort()).toEqual(events.map((event) => event.id).sort());
  });
});

describe("a plain core subscription meeting bad messages", () => {
  it("counts and logs them, reads events against the contract (version 1 when absent), and ignores unknown types", async () => {
    const registry = createMetricsRegistry();
    const results: CoreRead<EventEnvelope>[] = [];
    const read = coreEventReader({ consumer: "core-test", logger, registry, read: demoContract });
    // Counted from 0, so that increase() in an alert sees the first one.
    expect((await scrape(registry)).value("support_events_dead_lettered_total", { consumer: "core-test", reason: "unparseable" })).toBe(0);
    const subject = `${prefix}core.thing.changed`;
    const subscription = nc.subscribe(subject, {
      callback: (_error, message) => {
        results.push(read(message));
      },
    });
    const { version: _, ...old } = createEnvelope({ type: "core.thing.changed", version: 1, companyId, data: { n: 1 } });
    nc.publish(subject, "nope");
    nc.publish(subject, JSON.stringify({ ...old, version: 9 }));
    nc.publish(subject, JSON.stringify(old));
    nc.publish(subject, JSON.stringify({ ...old, type: "core.thing.unknown" }));
    await expect.poll(() => results.length, { timeout: 5000 }).toBe(4);
    subscription.unsubscribe();
    // A skipped envelope is handed over too: a harmless action (an eviction) can still act broadly on it.
    expect(results).toEqual([
      { skipped: "unparseable" },
      { skipped: "unknown_version", envelope: { ...old, version: 9 } },
      { event: { ...old, version: 1 } },
      { ignored: "core.thing.unknown", envelope: { ...old, type: "core.thing.unknown", version: 1 } },
    ]);
    const scraped = await scrape(registry);
    expect(scraped.value("support_events_dead_lettered_total", { consumer: "core-test", reason: "unparseable" })).toBe(1);
    expect(scraped.value("support_events_dead_lettered_total", { consumer: "core-test", reason: "unknown_version" })).toBe(1);
    expect(scraped.value("support_events_dead_lettered_total", { consumer: "core-test", reason: "not_envelope" })).toBe(0);
  });
});
