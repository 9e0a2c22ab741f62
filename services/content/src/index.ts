// What other packages (the gateway's integration tests, the local stack) use of this service.
export type { ContentDeps } from "./context.ts";
export { createServer } from "./server.ts";
export { loadContentConfig, type ContentConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { ContentDatabase } from "./database.ts";
