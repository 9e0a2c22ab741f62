// What other packages (the gateway's integration tests, the local stack) use of this service.
export { createServer, type EmailDeps, type EmailServer } from "./server.ts";
export { loadEmailConfig, type EmailConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { EmailDatabase } from "./database.ts";
