// Applies the content schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadContentConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadContentConfig();
await runMigrateCommand({ schema: "content", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
