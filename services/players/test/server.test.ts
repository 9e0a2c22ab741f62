import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus } from "@support/bus";
import { createDb, migrateToLatest, sql } from "@support/db";
import { createLogger } from "@support/logging";
import { health } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createServer, loadPlayersConfig, migrations, type PlayersDatabase } from "../src/index.ts";

const logger = createLogger({ service: "players-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("players service", () => {
  let infra: TestInfra;
  let server: ReturnType<typeof createServer>;
  let baseUrl: string;
  let db: ReturnType<typeof createDb<PlayersDatabase>>;

  beforeAll(async () => {
    infra = await createTestInfra();
    const config = loadPlayersConfig({ ...infra.env, NATS_PREFIX: infra.natsPrefix, PORT: "0", HOST: "127.0.0.1" });
    db = createDb<PlayersDatabase>({ url: config.DATABASE_URL, schema: "players" });
    await migrateToLatest(db, "players", migrations);
    server = createServer({ config, logger, db, nc: await connectBus(config.NATS_URL, "players-test") });
    baseUrl = `http://127.0.0.1:${(await server.start()).port}`;
  });

  afterAll(async () => {
    await server.stop();
    await infra.stop();
  });

  it("keeps its tables in its own schema", async () => {
    const probe = createDb({ url: infra.databaseUrl, schema: "players" });
    const tables = await sql<{ table_schema: string }>`
      select distinct table_schema from information_schema.tables where table_name = 'outbox'`.execute(probe);
    await probe.destroy();
    expect(tables.rows.map((r) => r.table_schema)).toEqual(["players"]);
  });

  it("answers gRPC health checks and HTTP probes on its one port", async () => {
    const client = createServiceClient(health.Health, baseUrl);
    expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
  });
});
