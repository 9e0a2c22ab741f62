import { Writable } from "node:stream";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addOutboxTraceparent, connectBus, createOutboxTable, streamNameFor, writeEvents } from "@support/bus";
import { createDb, ensureDatabase, migrateToLatest } from "@support/db";
import { createLogger } from "@support/logging";
import { ContentService, health } from "@support/proto";
import { connectToAppError, createServiceClient } from "@support/rpc";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createServiceHost, drainTimeoutOf } from "./index.ts";

let infra: TestInfra;
const logger = createLogger({ service: "host-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("service host", () => {
  beforeAll(async () => {
    infra = await createTestInfra();
  });
  afterAll(() => infra.stop());

  it("creates its stream, serves health, publishes pending events at stop, and releases its connections", async () => {
    const { databaseUrl, natsUrl, natsPrefix: prefix } = infra;
    await ensureDatabase(databaseUrl);
    const db = createDb({ url: databaseUrl, schema: "demo" });
    await migrateToLatest(db, "demo", { "0001": { up: createOutboxTable }, "0002": { up: addOutboxTraceparent } });
    const nc = await connectBus(natsUrl, "host-test");
    const started: string[] = [];
    const host = createServiceHost({
      name: "demo", rpcServiceName: "demo.v1.DemoService", db, nc, logger,
      config: { HOST: "127.0.0.1", PORT: 0, DATABASE_URL: databaseUrl, NATS_PREFIX: prefix, METRICS_HOST: "127.0.0.1", METRICS_PORT: 0 }, routes: () => undefined,
      workers: [{ start: () => void started.push("worker"), stop: async () => void started.push("worker stopped") }],
    });
    const { port } = await host.start();
    const client = createServiceClient(health.Health, `http://127.0.0.1:${port}`);
    expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);

    await writeEvents(db, [{ type: "demo.thing.created", version: 1, companyId: "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11", data: {} }]);
    await host.stop();
    expect(started).toEqual(["worker", "worker stopped"]);
    expect(nc.isClosed()).toBe(true);

    const observer = await connectBus(natsUrl, "observer");
    const info = await (await jetstreamManager(observer)).streams.info(streamNameFor(prefix, "demo"));
    expect(info.state.messages).toBe(1);
    await observer.close();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("lets calls in flight finish at stop, cuts what still runs at the drain deadline, and stops within SHUTDOWN_TIMEOUT_MS", async () => {
    const { databaseUrl, natsUrl, natsPrefix: prefix } = infra;
    const shutdownTimeoutMs = 2000;
    const db = createDb({ url: databaseUrl, schema: "demo_stop" });
    await migrateToLatest(db, "demo_stop", { "0001": { up: createOutboxTable }, "0002": { up: addOutboxTraceparent } });
    const nc = await connectBus(natsUrl, "host-stop-test");
    let entered = 0;
    const host = createServiceHost({
      name: "demo_stop", rpcServiceName: "content.v1.ContentService", db, nc, logger,
      config: { HOST: "127.0.0.1", PORT: 0, DATABASE_URL: databaseUrl, NATS_PREFIX: prefix, SHUTDOWN_TIMEOUT_MS: shutdownTimeoutMs, METRICS_HOST: "127.0.0.1", METRICS_PORT: 0 },
      routes: (router) =>
        router.service(ContentService, {
          async getCompany(request, context) {
            entered += 1;
            // "slow" answers after a while; anything else runs until the server cuts it.
            if (request.companyId === "slow") await new Promise((resolve) => setTimeout(resolve, 400));
            else await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
            return { company: { id: request.companyId, name: "Acme", primaryLanguage: "en" } };
          },
        }),
    });
    const { port } = await host.start();
    const client = createServiceClient(ContentService, `http://127.0.0.1:${port}`, { timeoutMs: 10_000 });
    const slow = client.getCompany({ companyId: "slow" });
    const hung = client.getCompany({ companyId: "hang" }).then(() => undefined, (error: unknown) => error);
    await expect.poll(() => entered, { timeout: 5000, interval: 5 }).toBe(2);

    const stopAt = performance.now();
    await host.stop();
    const stoppedAfter = performance.now() - stopAt;
    expect((await slow).company?.name).toBe("Acme");
    expect(connectToAppError(await hung).code).toBe("unavailable");
    // The hung call held the server until the drain deadline, and the rest of the shutdown fit in what was left.
    expect(stoppedAfter).toBeGreaterThanOrEqual(drainTimeoutOf(shutdownTimeoutMs) - 5);
    expect(stoppedAfter).toBeLessThan(shutdownTimeoutMs);
    expect(nc.isClosed()).toBe(true);
  });
});
