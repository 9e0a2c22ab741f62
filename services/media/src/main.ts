// Process entry: configuration, connections, server, signals.
import { connectBus } from "@support/bus";
import { createDb } from "@support/db";
import { createLogger } from "@support/logging";
import { runUntilSignal } from "@support/runtime";
import { loadMediaConfig } from "./config.ts";
import type { MediaDatabase } from "./database.ts";
import { createServer } from "./server.ts";

const config = loadMediaConfig();
const logger = createLogger({ service: "media", level: config.LOG_LEVEL });

await runUntilSignal(async () => {
  const db = createDb<MediaDatabase>({ url: config.DATABASE_URL, schema: "media", maxConnections: config.DB_POOL_MAX });
  const nc = await connectBus(config.NATS_URL, "media", logger);
  const server = createServer({ config, logger, db, nc });
  await server.start();
  return server;
}, logger, config.SHUTDOWN_TIMEOUT_MS);
