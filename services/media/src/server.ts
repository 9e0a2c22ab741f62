// Builds the media service from its dependencies; no globals, so tests start it in-process.
import { createIdempotencyPurgeJobFromConfig } from "@support/idempotency";
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createMetricsRegistry } from "@support/metrics";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { GameDirectory, MediaContext } from "./attachments/attachment.service.ts";
import { createAttachmentSweepJob, type AttachmentSweepJob } from "./jobs/attachment-sweep.job.ts";
import { createContentClient, createGameDirectory } from "./clients.ts";
import type { MediaConfig } from "./config.ts";
import type { MediaDatabase } from "./database.ts";
import { registerRoutes } from "./routes.ts";
import { createObjectStorage, type ObjectStorage } from "./storage/object-storage.ts";

export interface MediaDeps {
  config: MediaConfig;
  logger: Logger;
  db: Kysely<MediaDatabase>;
  nc: NatsConnection;
  /** Games of a company; by default content.GetGame at CONTENT_URL. */
  games?: GameDirectory;
  /** The bucket; by default the S3_* configuration. */
  storage?: ObjectStorage;
}

export interface MediaServer extends ServiceHost {
  /** The sweep of unused uploads, for tests (runOnce) and operators. */
  sweep: AttachmentSweepJob;
}

export function createServer(deps: MediaDeps): MediaServer {
  const { config, logger } = deps;
  const storage = deps.storage ?? createObjectStorage(config);
  // One registry for the process: its content client records into it, and the host serves it.
  const registry = createMetricsRegistry();
  const ctx: MediaContext = {
    db: deps.db,
    storage,
    games: deps.games ?? createGameDirectory(createContentClient(config, registry)),
    logger,
    uploadExpiresInSeconds: config.UPLOAD_URL_EXPIRES_SECONDS,
    downloadExpiresInSeconds: config.DOWNLOAD_URL_EXPIRES_SECONDS,
    unusedTtlHours: config.UNUSED_ATTACHMENT_TTL_HOURS,
  };
  const sweep = createAttachmentSweepJob(ctx, { intervalMs: config.ATTACHMENT_SWEEP_INTERVAL_MS, logger });
  const host = createServiceHost({
    name: "media",
    rpcServiceName: "media.v1.MediaService",
    db: deps.db,
    config: config,
    nc: deps.nc,
    logger,
    registry,
    routes: (router) => registerRoutes(router, ctx),
    workers: [sweep, createIdempotencyPurgeJobFromConfig(deps.db, config, logger)],
  });
  const stopHost = host.stop;
  return Object.assign(host, {
    sweep,
    async stop() {
      await stopHost();
      storage.destroy();
    },
  });
}
