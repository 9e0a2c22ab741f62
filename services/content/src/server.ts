// Builds the content service from its dependencies; no globals, so tests start it in-process.
import { createIdempotencyPurgeJobFromConfig } from "@support/idempotency";
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { ContentConfig } from "./config.ts";
import type { ContentDatabase } from "./database.ts";
import { registerAdminRoutes } from "./admin-routes.ts";
import { registerRoutes } from "./routes.ts";

export interface ContentDeps {
  config: ContentConfig;
  logger: Logger;
  db: Kysely<ContentDatabase>;
  nc: NatsConnection;
}

export function createServer(deps: ContentDeps): ServiceHost {
  return createServiceHost({
    name: "content",
    rpcServiceName: "content.v1.ContentService",
    db: deps.db,
    config: deps.config,
    nc: deps.nc,
    logger: deps.logger,
    routes: (router) => {
      registerRoutes(router, deps);
      registerAdminRoutes(router, deps);
    },
    workers: [createIdempotencyPurgeJobFromConfig(deps.db, deps.config, deps.logger)],
  });
}
