// Builds the media service from its dependencies; no globals, so tests start it in-process.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { MediaConfig } from "./config.ts";
import { registerRoutes } from "./routes.ts";
import type { MediaDatabase } from "./database.ts";

export interface MediaDeps {
  config: MediaConfig;
  logger: Logger;
  db: Kysely<MediaDatabase>;
  nc: NatsConnection;
}

export function createServer(deps: MediaDeps): ServiceHost {
  return createServiceHost({
    name: "media",
    rpcServiceName: "media.v1.MediaService",
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
