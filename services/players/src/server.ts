// Builds the players service from its dependencies; no globals, so tests start it in-process.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { ContentService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { PlayersConfig } from "./config.ts";
import { registerRoutes } from "./routes.ts";
import type { PlayersDatabase } from "./database.ts";
import { createExpirySweep, type ExpirySweep } from "./sessions/expiry-sweep.job.ts";
import { createGameDirectory, type ContentClient } from "./sessions/game-directory.ts";

export interface PlayersDeps {
  config: PlayersConfig;
  logger: Logger;
  db: Kysely<PlayersDatabase>;
  nc: NatsConnection;
  /** Content (environment tokens, JWKS, field types) for sessions; by default a client of CONTENT_URL. */
  content?: ContentClient;
}

export interface PlayersServer extends ServiceHost {
  /** Deletes expired sessions and ended rate-limit windows (tests call runOnce). */
  expirySweep: ExpirySweep;
}

export function createServer(deps: PlayersDeps): PlayersServer {
  const content = deps.content ?? createServiceClient(ContentService, deps.config.CONTENT_URL, { timeoutMs: deps.config.RPC_TIMEOUT_MS });
  const sessions = {
    db: deps.db,
    games: createGameDirectory(content),
    settings: { ttlSeconds: deps.config.SESSION_TTL_SECONDS },
  };
  const expirySweep = createExpirySweep(deps.db, { intervalMs: deps.config.EXPIRY_SWEEP_INTERVAL_MS, logger: deps.logger });
  const host = createServiceHost({
    name: "players",
    rpcServiceName: "players.v1.PlayersService",
    db: deps.db,
    databaseUrl: deps.config.DATABASE_URL,
    nc: deps.nc,
    natsPrefix: deps.config.NATS_PREFIX,
    logger: deps.logger,
    host: deps.config.HOST,
    port: deps.config.PORT,
    routes: (router) => registerRoutes(router, deps, sessions),
    workers: [expirySweep],
  });
  return Object.assign(host, { expirySweep });
}
