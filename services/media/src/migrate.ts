// Applies the media schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadMediaConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadMediaConfig();
await runMigrateCommand({ schema: "media", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
