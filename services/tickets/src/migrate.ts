// Applies the tickets schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadTicketsMigrateConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadTicketsMigrateConfig();
await runMigrateCommand({ schema: "tickets", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
