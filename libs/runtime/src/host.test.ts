import { Writable } from "node:stream";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, describe, expect, it } from "vitest";
import { connectBus, createOutboxTable, streamNameFor, writeEvents } from "@support/bus";
import { createDb, ensureDatabase, migrateToLatest } from "@support/db";
import { createLogger } from "@support/logging";
import { health } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createServiceHost } from "./index.ts";

let infra: TestInfra;
const logger = createLogger({ service: "host-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("service host", () => {
  afterAll(() => infra.stop());

  it("creates its stream, serves health, publishes pending events at stop, and releases its connections", async () => {
    infra = await createTestInfra();
    const { databaseUrl, natsUrl, natsPrefix: prefix } = infra;
    await ensureDatabase(databaseUrl);
    const db = createDb({ url: databaseUrl, schema: "demo" });
    await migrateToLatest(db, "demo", { "0001": { up: createOutboxTable } });
    const nc = await connectBus(natsUrl, "host-test");
    const started: string[] = [];
    const host = createServiceHost({
      name: "demo", rpcServiceName: "demo.v1.DemoService", db, nc, logger,
      config: { HOST: "127.0.0.1", PORT: 0, DATABASE_URL: databaseUrl, NATS_PREFIX: prefix }, routes: () => undefined,
      workers: [{ start: () => void started.push("worker"), stop: async () => void started.push("worker stopped") }],
    });
    const { port } = await host.start();
    const client = createServiceClient(health.Health, `http://127.0.0.1:${port}`);
    expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);

    await writeEvents(db, [{ type: "demo.thing.created", companyId: "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11", data: {} }]);
    await host.stop();
    expect(started).toEqual(["worker", "worker stopped"]);
    expect(nc.isClosed()).toBe(true);

    const observer = await connectBus(natsUrl, "observer");
    const info = await (await jetstreamManager(observer)).streams.info(streamNameFor(prefix, "demo"));
    expect(info.state.messages).toBe(1);
    await observer.close();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
