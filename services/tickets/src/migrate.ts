// Applies the tickets schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { createDb, ensureDatabase, migrateToLatest } from "@support/db";
import { createLogger } from "@support/logging";
import { loadTicketsConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadTicketsConfig();
const logger = createLogger({ service: "tickets-migrate", level: config.LOG_LEVEL });
await ensureDatabase(config.DATABASE_URL);
const db = createDb({ url: config.DATABASE_URL, schema: "tickets", maxConnections: 1 });
try {
  const result = await migrateToLatest(db, "tickets", migrations);
  logger.info({ applied: result.results?.map((r) => r.migrationName) ?? [] }, "migrations applied");
} catch (error) {
  logger.fatal({ err: error }, "migration failed");
  process.exitCode = 1;
} finally {
  await db.destroy();
}
