// Builds the players service from its dependencies; no globals, so tests start it in-process.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { PlayersConfig } from "./config.ts";
import { registerRoutes } from "./routes.ts";
import type { PlayersDatabase } from "./database.ts";

export interface PlayersDeps {
  config: PlayersConfig;
  logger: Logger;
  db: Kysely<PlayersDatabase>;
  nc: NatsConnection;
}

export function createServer(deps: PlayersDeps): ServiceHost {
  return createServiceHost({
    name: "players",
    rpcServiceName: "players.v1.PlayersService",
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
