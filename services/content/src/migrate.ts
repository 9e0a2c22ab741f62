// Applies the content schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadContentMigrateConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadContentMigrateConfig();
await runMigrateCommand({ schema: "content", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
