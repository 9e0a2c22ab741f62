// A started content service for integration tests: its own database and NATS prefix (testkit),
// a Connect client, and the database handle for seeding through the use cases.
import type { Client } from "@connectrpc/connect";
import { connectBus } from "@support/bus";
import { migrateToLatest, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { connectToAppError, createServiceClient } from "@support/rpc";
import type { ServiceHost } from "@support/runtime";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createTestDb } from "./db.ts";
import { createServer, loadContentConfig, migrations, type ContentConfig, type ContentDatabase } from "../src/index.ts";

export interface ContentTestContext {
  infra: TestInfra;
  config: ContentConfig;
  /** The server's pool; seed through the use cases with it. */
  db: Kysely<ContentDatabase>;
  server: ServiceHost;
  client: Client<typeof ContentService>;
  /** Where the service answers, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startContent(): Promise<ContentTestContext> {
  const infra = await createTestInfra();
  try {
    const config: ContentConfig = {
      ...loadContentConfig({ ...infra.env, NATS_PREFIX: infra.natsPrefix, HOST: "127.0.0.1", LOG_LEVEL: "silent" }),
      PORT: 0,
    };
    const logger = createLogger({ service: "content-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
    const db = createTestDb(infra.databaseUrl);
    await migrateToLatest(db as unknown as Kysely<unknown>, "content", migrations);
    const nc = await connectBus(infra.natsUrl, "content-test");
    const server = createServer({ config, logger, db, nc });
    const { port } = await server.start();
    const baseUrl = `http://127.0.0.1:${port}`;
    const client = createServiceClient(ContentService, baseUrl);
    return {
      infra,
      config,
      db,
      server,
      client,
      baseUrl,
      stop: async () => {
        await server.stop();
        await infra.stop();
      },
    };
  } catch (error) {
    await infra.stop();
    throw error;
  }
}

/** The domain error behind a failed call: `{code, message, details}` as the gateway sees it. */
export async function failureOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const appError = connectToAppError(error);
    return { code: appError.code, message: appError.message, issues: appError.details?.issues };
  }
  throw new Error("expected the call to fail");
}
