// Process entry: configuration, connections, server, signals.
import { connectBus } from "@support/bus";
import { createDb } from "@support/db";
import { createLogger } from "@support/logging";
import { runUntilSignal } from "@support/runtime";
import { loadContentConfig } from "./config.ts";
import type { ContentDatabase } from "./database.ts";
import { createServer } from "./server.ts";

const config = loadContentConfig();
const logger = createLogger({ service: "content", level: config.LOG_LEVEL });

await runUntilSignal(async () => {
  const db = createDb<ContentDatabase>({ url: config.DATABASE_URL, schema: "content", maxConnections: config.DB_POOL_MAX });
  const nc = await connectBus(config.NATS_URL, "content", logger);
  const server = createServer({ config, logger, db, nc });
  await server.start();
  return server;
}, logger, config.SHUTDOWN_TIMEOUT_MS);
