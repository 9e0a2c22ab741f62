import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import pg from "pg";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, describe, expect, it } from "vitest";
import { connectBus, createOutboxTable, streamNameFor, writeEvents } from "@support/bus";
import { createDb, ensureDatabase, migrateToLatest } from "@support/db";
import { createLogger } from "@support/logging";
import { health } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { createServiceHost } from "./index.ts";

const adminUrl = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const run = randomBytes(4).toString("hex");
const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/t_host_${run}`);
const prefix = `t_${run}_`;
const logger = createLogger({ service: "host-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("service host", () => {
  afterAll(async () => {
    const nc = await connectBus(natsUrl, "cleanup");
    await (await jetstreamManager(nc)).streams.delete(streamNameFor(prefix, "demo")).catch(() => undefined);
    await nc.close();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists t_host_${run} with (force)`);
    await admin.end();
  });

  it("creates its stream, serves health, publishes pending events at stop, and releases its connections", async () => {
    await ensureDatabase(databaseUrl);
    const db = createDb({ url: databaseUrl, schema: "demo" });
    await migrateToLatest(db, "demo", { "0001": { up: createOutboxTable } });
    const nc = await connectBus(natsUrl, "host-test");
    const started: string[] = [];
    const host = createServiceHost({
      name: "demo", rpcServiceName: "demo.v1.DemoService", db, databaseUrl, nc, natsPrefix: prefix, logger,
      host: "127.0.0.1", port: 0, routes: () => undefined,
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
