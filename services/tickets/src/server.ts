// Builds the tickets service from its dependencies; no globals, so tests start it in-process.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { TicketsConfig } from "./config.ts";
import { registerRoutes } from "./routes.ts";
import type { TicketsDatabase } from "./database.ts";

export interface TicketsDeps {
  config: TicketsConfig;
  logger: Logger;
  db: Kysely<TicketsDatabase>;
  nc: NatsConnection;
}

export function createServer(deps: TicketsDeps): ServiceHost {
  return createServiceHost({
    name: "tickets",
    rpcServiceName: "tickets.v1.TicketsService",
    db: deps.db,
    databaseUrl: deps.config.DATABASE_URL,
    nc: deps.nc,
    natsPrefix: deps.config.NATS_PREFIX,
    logger: deps.logger,
    host: deps.config.HOST,
    port: deps.config.PORT,
    routes: (router) => registerRoutes(router, deps),
  });
}
