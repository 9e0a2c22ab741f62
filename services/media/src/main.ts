// Process entry: tracing, configuration, connections, server, signals.
import { connectBus } from "@support/bus";
import { createDb } from "@support/db";
import { createLogger } from "@support/logging";
import { runUntilSignal } from "@support/runtime";
import { startTracing } from "@support/tracing";
import { loadMediaConfig } from "./config.ts";
import type { MediaDatabase } from "./database.ts";
import { createServer } from "./server.ts";

// First, before any connection: the SDK is registered (when OTEL_* asks for it) before the
// clients and pools it traces exist.
const tracing = await startTracing({ serviceName: "media" });
const config = loadMediaConfig();
const logger = createLogger({ service: "media", level: config.LOG_LEVEL });
if (tracing.enabled) logger.info({ endpoint: tracing.endpoint }, "exporting traces over OTLP");

await runUntilSignal(async () => {
  const db = createDb<MediaDatabase>({ url: config.DATABASE_URL, schema: "media", maxConnections: config.DB_POOL_MAX, readLaneConnections: config.DB_READ_LANE_MAX, preparedStatementsMax: config.DB_PREPARED_STATEMENTS_MAX });
  const nc = await connectBus(config.NATS_URL, "media", logger);
  const server = createServer({ config, logger, db, nc });
  await server.start();
  return {
    // The spans of the shutdown itself are exported too.
    async stop() {
      await server.stop();
      await tracing.shutdown();
    },
  };
}, logger, config.SHUTDOWN_TIMEOUT_MS);
