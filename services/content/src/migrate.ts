// Applies the content schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { createDb, ensureDatabase, migrateToLatest } from "@support/db";
import { createLogger } from "@support/logging";
import { loadContentConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadContentConfig();
const logger = createLogger({ service: "content-migrate", level: config.LOG_LEVEL });
await ensureDatabase(config.DATABASE_URL);
const db = createDb({ url: config.DATABASE_URL, schema: "content", maxConnections: 1 });
try {
  const result = await migrateToLatest(db, "content", migrations);
  logger.info({ applied: result.results?.map((r) => r.migrationName) ?? [] }, "migrations applied");
} catch (error) {
  logger.fatal({ err: error }, "migration failed");
  process.exitCode = 1;
} finally {
  await db.destroy();
}
