// Applies the webhooks schema's migrations and exits (a Kubernetes Job or the local stack runs it).
import { runMigrateCommand } from "@support/runtime";
import { loadWebhooksMigrateConfig } from "./config.ts";
import { migrations } from "./migrations/index.ts";

const config = loadWebhooksMigrateConfig();
await runMigrateCommand({ schema: "webhooks", migrations, databaseUrl: config.DATABASE_URL, logLevel: config.LOG_LEVEL });
