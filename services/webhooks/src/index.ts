// What other packages (the gateway's integration tests, the local stack) use of this service.
export { createServer, type WebhooksDeps, type WebhooksServer } from "./server.ts";
export { loadWebhooksConfig, type WebhooksConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { WebhooksDatabase } from "./database.ts";
export { publicEventTypes, type PublicEventType } from "./webhooks/webhook.ts";
