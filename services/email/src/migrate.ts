// Applies the email schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadEmailMigrateConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadEmailMigrateConfig();
await runMigrateCommand({ schema: "email", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
