// What other packages (the local stack, tests) use of the gateway.
export { createServer, type Gateway, type GatewayDeps } from "./server.ts";
export { loadGatewayConfig, type GatewayConfig } from "./config.ts";
export { createClients, SERVICE_NAMES, type GatewayClients, type ServiceName } from "./clients.ts";
export { catalogFileFor } from "./routes/web-support.ts";
