// What other packages (the gateway's integration tests, the local stack) use of this service.
export { createServer, type TicketsDeps, type TicketsServer } from "./server.ts";
export { loadTicketsConfig, type TicketsConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { TicketsDatabase } from "./database.ts";
export type { TicketsClients } from "./clients.ts";
