// Process entry: configuration, connections, server, signals.
import { connectBus } from "@support/bus";
import { createDb } from "@support/db";
import { createLogger } from "@support/logging";
import { runUntilSignal } from "@support/runtime";
import { loadTicketsConfig } from "./config.ts";
import type { TicketsDatabase } from "./database.ts";
import { createServer } from "./server.ts";

const config = loadTicketsConfig();
const logger = createLogger({ service: "tickets", level: config.LOG_LEVEL });

await runUntilSignal(async () => {
  const db = createDb<TicketsDatabase>({ url: config.DATABASE_URL, schema: "tickets", maxConnections: config.DB_POOL_MAX });
  const nc = await connectBus(config.NATS_URL, "tickets", logger);
  const server = createServer({ config, logger, db, nc });
  await server.start();
  return server;
}, logger, config.SHUTDOWN_TIMEOUT_MS);
