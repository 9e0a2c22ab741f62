// Applies the webhooks schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadWebhooksConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadWebhooksConfig();
await runMigrateCommand({ schema: "webhooks", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
