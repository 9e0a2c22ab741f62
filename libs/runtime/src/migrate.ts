// The body of every service's `migrate.ts` entry: apply its schema's migrations, log what was
// applied, and report failure through the exit code (a Kubernetes Job or the local stack runs it).
import { createDb, ensureDatabase, migrateToLatest, type Migration } from "@support/db";
import { createLogger } from "@support/logging";

export interface MigrateCommandSettings {
  schema: string;
  migrations: Record<string, Migration>;
  databaseUrl: string;
  logLevel: string;
}

export async function runMigrateCommand(settings: MigrateCommandSettings): Promise<void> {
  const logger = createLogger({ service: `${settings.schema}-migrate`, level: settings.logLevel });
  const db = createDb({ url: settings.databaseUrl, schema: settings.schema, maxConnections: 1 });
  try {
    await ensureDatabase(settings.databaseUrl);
    const result = await migrateToLatest(db, settings.schema, settings.migrations);
    logger.info({ applied: result.results?.map((r) => r.migrationName) ?? [] }, "migrations applied");
  } catch (error) {
    logger.fatal({ err: error }, "migration failed");
    process.exitCode = 1;
  } finally {
    await db.destroy();
  }
}
