// Process entry: configuration, connections, server, signals.
import { connectBus } from "@support/bus";
import { createDb } from "@support/db";
import { createLogger } from "@support/logging";
import { runUntilSignal } from "@support/runtime";
import { loadPlayersConfig } from "./config.ts";
import type { PlayersDatabase } from "./database.ts";
import { createServer } from "./server.ts";

const config = loadPlayersConfig();
const logger = createLogger({ service: "players", level: config.LOG_LEVEL });

await runUntilSignal(async () => {
  const db = createDb<PlayersDatabase>({ url: config.DATABASE_URL, schema: "players", maxConnections: config.DB_POOL_MAX });
  const nc = await connectBus(config.NATS_URL, "players", logger);
  const server = createServer({ config, logger, db, nc });
  await server.start();
  return server;
}, logger, config.SHUTDOWN_TIMEOUT_MS);
