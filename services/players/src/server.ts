// Builds the players service from its dependencies; no globals, so tests start it in-process.
import { createIdempotencyPurgeJobFromConfig } from "@support/idempotency";
import { createMetricsRegistry } from "@support/metrics";
import { ContentService, MediaService, TicketsService } from "@support/proto";
import { balancingOf, createServiceClient, loadServiceCaller } from "@support/rpc";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import type { DeletionContext } from "./deletion/deletion.service.ts";
import { createErasureServices, ERASURE_CALL_TIMEOUT_MS } from "./deletion/erasure-services.ts";
import { registerDeletionMetrics } from "./deletion/deletion.metrics.ts";
import { createDeletionConsumer } from "./events/deletion.consumer.ts";
import { registerAdminRoutes } from "./admin-routes.ts";
import { registerRoutes } from "./routes.ts";
import { createExpirySweepJob, type ExpirySweepJob } from "./jobs/expiry-sweep.job.ts";
import { createMailer } from "@support/mail";
import type { EmailVerificationContext } from "./sessions/email-verification.service.ts";
import type { PlayersDeps } from "./context.ts";
import { createGameDirectory } from "./sessions/game-directory.ts";

export interface PlayersServer extends ServiceHost {
  /** Deletes expired sessions and ended rate-limit windows (tests call runOnce). */
  expirySweep: ExpirySweepJob;
}

export function createServer(deps: PlayersDeps): PlayersServer {
  // One registry for the process: its clients and consumer record into it, and the host serves it.
  const registry = createMetricsRegistry();
  const balancing = balancingOf(deps.config);
  const identity = loadServiceCaller("players", deps.config);
  const content = deps.content ?? createServiceClient(ContentService, deps.config.CONTENT_URL, { timeoutMs: deps.config.RPC_TIMEOUT_MS, balancing, registry, identity });
  const mailer = createMailer({ smtpUrl: deps.config.SMTP_URL, from: deps.config.MAIL_FROM, logger: deps.logger });
  const sessions: EmailVerificationContext = {
    db: deps.db,
    games: createGameDirectory(content),
    settings: { ttlSeconds: deps.config.SESSION_TTL_SECONDS },
    mailer,
    emailVerification: {
      codeTtlSeconds: deps.config.EMAIL_CODE_TTL_SECONDS,
      maxAttempts: deps.config.EMAIL_CODE_MAX_ATTEMPTS,
      maxSends: deps.config.EMAIL_CODE_MAX_SENDS,
      resendAfterSeconds: deps.config.EMAIL_CODE_RESEND_SECONDS,
    },
  };
  const expirySweep = createExpirySweepJob(deps.db, { intervalMs: deps.config.EXPIRY_SWEEP_INTERVAL_MS, logger: deps.logger });
  // An erasure step deletes everything of a player at once (many tickets, many objects): give
  // it longer than a plain call. Steps are idempotent, so a timed-out one is simply run again.
  const erasureCallOptions = { timeoutMs: Math.max(deps.config.RPC_TIMEOUT_MS, ERASURE_CALL_TIMEOUT_MS), balancing, registry, identity };
  const deletion: DeletionContext = {
    db: deps.db,
    services: createErasureServices({
      content,
      tickets: deps.tickets ?? createServiceClient(TicketsService, deps.config.TICKETS_URL, erasureCallOptions),
      media: deps.media ?? createServiceClient(MediaService, deps.config.MEDIA_URL, erasureCallOptions),
    }),
    logger: deps.logger,
    delaySeconds: deps.config.PLAYER_DELETION_DELAY_SECONDS,
    lockWaitMs: 4 * deps.config.RPC_TIMEOUT_MS,
  };
  const deletionConsumer = createDeletionConsumer(deletion, {
    nc: deps.nc,
    natsPrefix: deps.config.NATS_PREFIX,
    logger: deps.logger,
    maxPending: deps.config.PLAYER_DELETION_MAX_PENDING,
    registry,
  });
  registerDeletionMetrics(registry, deps.db, deps.logger);
  const host = createServiceHost({
    name: "players",
    rpcServiceName: "players.v1.PlayersService",
    db: deps.db,
    config: deps.config,
    nc: deps.nc,
    logger: deps.logger,
    registry,
    routes: (router) => {
      registerRoutes(router, deps, sessions, deletion);
      registerAdminRoutes(router, deps);
    },
    workers: [
      expirySweep,
      deletionConsumer,
      createIdempotencyPurgeJobFromConfig(deps.db, deps.config, deps.logger),
      // The SMTP connections pool closes with the service.
      { start: async () => {}, stop: async () => mailer.close() },
    ],
  });
  deletion.publishNow = () => host.relay.flush();
  return Object.assign(host, { expirySweep });
}
