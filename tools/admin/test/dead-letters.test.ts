// `pnpm admin dead-letters list|replay|delete` (the command's `main`, in this process, with an
// environment of its own) against real NATS, under this run's own prefix: the messages a
// consumer (libs/bus) set aside are listed, replayed to their original subject (where the
// consumer receives them again, within the stream's duplicate window) and deleted. No service
// and no admin token are involved.
import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ack, connectBus, createConsumer, createEnvelope, ensureStream, streamNameFor, term, type Consumer, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createLogger } from "@support/logging";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { runAdminCommand, type AdminRun } from "../src/in-process.ts";

const companyId = "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11";

let infra: TestInfra;
let nc: NatsConnection;
let js: JetStreamClient;
let stream: string;
const consumers: Consumer[] = [];
/** Events the "orders" consumer handled; it rejects those whose data says so. */
const handled: EventEnvelope[] = [];
let rejecting = true;

function runCli(args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  // No ADMIN_TOKEN and no token file: these verbs must not need one.
  return runAdminCommand(args, {
    env: { NATS_URL: infra.natsUrl, NATS_PREFIX: infra.natsPrefix, ADMIN_TOKEN_FILE: "/nonexistent/admin-token", LOG_LEVEL: "warn", ...env },
  });
}

async function json<T>(args: string[]): Promise<T> {
  const run = await runCli(args);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

interface Listed {
  deadLetters: { seq: number; consumer: string; reason: string; subject: string; body?: string; messageId: string | null }[];
  total: number;
}

beforeAll(async () => {
  infra = await createTestInfra();
  nc = await connectBus(infra.natsUrl, "admin-dead-letters-test");
  js = jetstream(nc);
  const prefix = infra.natsPrefix;
  stream = streamNameFor(prefix, "shop");
  await ensureStream(nc, { name: stream, subjects: [`${prefix}shop.>`] });
  const logger = createLogger({ service: "admin-dead-letters-test", level: "silent" });
  for (const [durable, filter] of [["orders", "shop.order.>"], ["refunds", "shop.refund.>"]] as const) {
    const consumer = createConsumer<EventEnvelope>({
      nc, natsPrefix: prefix, stream, durable, filterSubject: `${prefix}${filter}`, logger, concurrency: 1, maxAckPending: 1, retryDelayMs: 10,
      // A contract that reads version 1 only, as the services' (libs/events) do for these types.
      read: (envelope) => (envelope.version === 1 ? { event: envelope } : { reason: "unknown_version", detail: `v${envelope.version}` }),
      handle: async (event) => {
        if (rejecting && event.data.reject === true) return term("rejected by the test");
        handled.push(event);
        return ack;
      },
    });
    await consumer.start();
    consumers.push(consumer);
  }
});

afterAll(async () => {
  for (const consumer of consumers) await consumer.stop();
  await nc?.drain();
  await infra?.stop();
});

describe("pnpm admin dead-letters", () => {
  let rejected: EventEnvelope;

  it("lists nothing before any message was set aside", async () => {
    expect(await json<Listed>(["dead-letters", "list"])).toEqual({ deadLetters: [], total: 0 });
  });

  it("lists the dead letters of every consumer or of one, oldest first, a page at a time", async () => {
    const prefix = infra.natsPrefix;
    await js.publish(`${prefix}shop.order.created`, "{not json");
    rejected = createEnvelope({ type: "shop.order.created", version: 1, companyId, data: { reject: true } });
    await js.publish(`${prefix}shop.order.created`, JSON.stringify(rejected), { msgID: rejected.id });
    await js.publish(`${prefix}shop.refund.created`, JSON.stringify({ ...createEnvelope({ type: "shop.refund.created", version: 1, companyId, data: {} }), version: 7 }));
    const after = createEnvelope({ type: "shop.order.created", version: 1, companyId, data: {} });
    await js.publish(`${prefix}shop.order.created`, JSON.stringify(after), { msgID: after.id });
    await expect.poll(() => handled.map((event) => event.id), { timeout: 10_000 }).toEqual([after.id]);

    const all = await json<Listed>(["dead-letters", "list"]);
    expect(all.total).toBe(3);
    // In the order they were set aside: each consumer's in its own order, the two interleaved.
    expect(all.deadLetters.map((d) => d.seq)).toEqual([...all.deadLetters.map((d) => d.seq)].sort((a, b) => a - b));
    const ofOrders = all.deadLetters.filter((d) => d.consumer === "orders");
    expect(ofOrders.map((d) => [d.reason, d.subject])).toEqual([
      ["unparseable", `${prefix}shop.order.created`],
      ["rejected", `${prefix}shop.order.created`],
    ]);
    expect(all.deadLetters.filter((d) => d.consumer === "refunds").map((d) => [d.reason, d.subject])).toEqual([["unknown_version", `${prefix}shop.refund.created`]]);
    expect(ofOrders[0]!.body).toBe("{not json");
    expect(ofOrders[1]!.messageId).toBe(rejected.id);

    const orders = await json<Listed>(["dead-letters", "list", "--consumer", "orders", "--limit", "1"]);
    expect(orders.total).toBe(2);
    expect(orders.deadLetters.map((d) => d.reason)).toEqual(["unparseable"]);
    const next = await json<Listed>(["dead-letters", "list", "--consumer", "orders", "--after", String(orders.deadLetters[0]!.seq)]);
    expect(next.deadLetters.map((d) => d.reason)).toEqual(["rejected"]);
  });

  it("replays a dead letter to its original subject (the consumer gets it again, inside the duplicate window) and deletes it", async () => {
    const { deadLetters } = await json<Listed>(["dead-letters", "list", "--consumer", "orders"]);
    const seq = deadLetters.find((d) => d.reason === "rejected")!.seq;
    rejecting = false;
    const replayed = await json<{ deadLetter: { seq: number; subject: string }; replayed: { stream: string; seq: number }; deleted: boolean }>(["dead-letters", "replay", String(seq)]);
    expect(replayed).toMatchObject({ deadLetter: { seq, subject: `${infra.natsPrefix}shop.order.created` }, replayed: { stream }, deleted: true });
    await expect.poll(() => handled.map((event) => event.id), { timeout: 10_000 }).toContain(rejected.id);
    expect((await json<Listed>(["dead-letters", "list", "--consumer", "orders"])).deadLetters.map((d) => d.reason)).toEqual(["unparseable"]);
    // Gone: replaying it again is an unknown id (exit 1).
    const again = await runCli(["dead-letters", "replay", String(seq)]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: "not_found" } });
  });

  it("keeps a replayed dead letter with --keep, and deletes one", async () => {
    const { deadLetters } = await json<Listed>(["dead-letters", "list", "--consumer", "refunds"]);
    const seq = deadLetters[0]!.seq;
    // The refunds consumer sets the unknown version aside again: a new dead letter, the old kept.
    const replayed = await json<{ deleted: boolean }>(["dead-letters", "replay", String(seq), "--keep"]);
    expect(replayed.deleted).toBe(false);
    await expect.poll(async () => (await json<Listed>(["dead-letters", "list", "--consumer", "refunds"])).total, { timeout: 10_000 }).toBe(2);
    expect(await json(["dead-letters", "delete", String(seq)])).toEqual({ seq, deleted: true });
    const left = await json<Listed>(["dead-letters", "list", "--consumer", "refunds"]);
    expect(left.total).toBe(1);
    expect(left.deadLetters[0]!.seq).not.toBe(seq);
    const missing = await runCli(["dead-letters", "delete", String(seq)]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: "not_found" } });
  });

  it("refuses bad arguments (exit 2) and says when NATS cannot be reached (exit 1)", async () => {
    for (const args of [["dead-letters"], ["dead-letters", "list", "--limit", "0"], ["dead-letters", "replay"], ["dead-letters", "delete", "x"], ["dead-letters", "list", "--keep"]]) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).toBe(2);
    }
    const unreachable = await runCli(["dead-letters", "list"], { NATS_URL: "nats://127.0.0.1:1" });
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stdout)).toMatchObject({ error: { code: "unavailable" } });
  });
});
