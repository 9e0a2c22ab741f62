import { randomUUID } from "node:crypto";
import { createLogger } from "@support/logging";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus, createCoreSubscription, createEnvelope, type CoreRead, type EventEnvelope, type NatsConnection } from "./index.ts";

let infra: TestInfra;
let nc: NatsConnection;
const logger = createLogger({ service: "core-subscription-test", level: "silent" });

beforeAll(async () => {
  infra = await createTestInfra();
  nc = await connectBus(infra.natsUrl, "core-subscription-test");
});
afterAll(async () => {
  await nc?.drain();
  await infra?.stop();
});

describe("a core subscription", () => {
  it("hands over each message of its subjects as read against the contract, counts the unreadable, and stops", async () => {
    const prefix = infra.natsPrefix;
    const registry = createMetricsRegistry();
    const seen: CoreRead<EventEnvelope>[] = [];
    const subscription = createCoreSubscription<EventEnvelope>({
      nc, natsPrefix: prefix, subjects: ["demo.thing.created", "demo.other.>"], consumer: "core-test", logger, registry,
      read: (envelope) => (envelope.version === 1 ? { event: envelope } : { reason: "unknown_version", detail: "v2" }),
      handle: (read) => void seen.push(read),
      missed: () => {},
    });
    await subscription.start();
    const companyId = randomUUID();
    const event = createEnvelope({ type: "demo.thing.created", version: 1, companyId, data: {} });
    nc.publish(`${prefix}demo.thing.created`, JSON.stringify(event));
    nc.publish(`${prefix}demo.other.changed`, JSON.stringify({ ...event, version: 2 }));
    nc.publish(`${prefix}demo.thing.deleted`, JSON.stringify(event)); // not subscribed
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[0]).toEqual({ event });
    expect(seen[1]).toMatchObject({ skipped: "unknown_version", envelope: { companyId, version: 2 } });
    const metrics = parseMetricsText(await registry.metrics());
    expect(metrics.value("support_events_dead_lettered_total", { consumer: "core-test", reason: "unknown_version" })).toBe(1);

    await subscription.stop();
    nc.publish(`${prefix}demo.thing.created`, JSON.stringify(event));
    await nc.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toHaveLength(2);
  });
});
