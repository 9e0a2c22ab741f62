// Applies the players schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadPlayersConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadPlayersConfig();
await runMigrateCommand({ schema: "players", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
