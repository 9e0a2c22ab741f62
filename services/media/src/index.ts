// What other packages (the gateway's integration tests, the local stack) use of this service.
export { createServer, type MediaDeps, type MediaServer } from "./server.ts";
export { loadMediaConfig, type MediaConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { MediaDatabase } from "./database.ts";
