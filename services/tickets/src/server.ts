// Builds the tickets service from its dependencies; no globals, so tests start it in-process.
import { createIdempotencyPurgeJobFromConfig } from "@support/idempotency";
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createMetricsRegistry } from "@support/metrics";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import { createAutoCloseJob, type AutoCloseJob } from "./jobs/auto-close.job.ts";
import { createRulesSweepJob, type RulesSweepJob } from "./jobs/rules-sweep.job.ts";
import { createClients, type TicketsClients } from "./clients.ts";
import type { TicketsConfig } from "./config.ts";
import type { TicketsContext } from "./context.ts";
import type { TicketsDatabase } from "./database.ts";
import { createContentChangedConsumer } from "./events/content-changed.consumer.ts";
import { createOutbreaksConsumer } from "./events/outbreaks.consumer.ts";
import { createRoutingConsumers } from "./events/routing.consumer.ts";
import { createTriageConsumers } from "./events/triage.consumer.ts";
import { createTriageTrainingJob, type TriageTrainingJob } from "./jobs/triage-training.job.ts";
import { createTriageModels } from "./triage/triage.service.ts";
import { createRulesConsumer } from "./events/rules.consumer.ts";
import { registerRoutingMetrics } from "./routing/routing.metrics.ts";
import { registerSlaMetrics } from "./sla/sla.metrics.ts";
import { createSlaJob, type SlaJob } from "./sla/sla.service.ts";
import { createContentReference, type ContentReference } from "./reference/content-reference.ts";
import { registerPlayerSideRoutes } from "./player-side/player-side.routes.ts";
import { registerAdminRoutes } from "./admin-routes.ts";
import { registerRoutes } from "./routes.ts";

export interface TicketsDeps {
  config: TicketsConfig;
  logger: Logger;
  db: Kysely<TicketsDatabase>;
  nc: NatsConnection;
  /** Clients of content, players and media; by default Connect clients of CONTENT_URL, PLAYERS_URL and MEDIA_URL. */
  clients?: TicketsClients;
  /** The clock of the SLA sweep; tests move it. */
  now?: () => Date;
}

export interface TicketsServer extends ServiceHost {
  /** The auto-close sweep, for tests (runOnce) and operators. */
  autoClose: AutoCloseJob;
  /** The time rules' sweep, for tests (runOnce) and operators. */
  rulesSweep: RulesSweepJob;
  /** The SLA sweep, for tests (runOnce) and operators. */
  sla: SlaJob;
  /** The cached reference data of content. */
  reference: ContentReference;
  /** The triage's training of every company's model, for tests (runOnce) and operators. */
  triageTraining: TriageTrainingJob;
}

export function createServer(deps: TicketsDeps): TicketsServer {
  const { config, logger } = deps;
  // One registry for the process: its clients record into it, and the host serves it.
  const registry = createMetricsRegistry();
  const clients = deps.clients ?? createClients(config, registry);
  const reference = createContentReference(clients.content, { ttlMs: config.CONTENT_CACHE_TTL_MS, maxEntries: config.CONTENT_CACHE_MAX_ENTRIES });
  const ctx: TicketsContext = {
    db: deps.db,
    logger,
    reference,
    players: clients.players,
    media: clients.media,
    supportAppUrl: config.SUPPORT_APP_URL,
    cursorSecret: config.cursorSecret,
    routing: clients.routing,
    cannedReplies: clients.cannedReplies,
    ruleTargets: clients.ruleTargets,
    routingMetrics: registerRoutingMetrics(registry, deps.db, logger),
    triage: createTriageModels(),
    now: deps.now ?? (() => new Date()),
  };
  const routing = createRoutingConsumers(ctx, { nc: deps.nc, natsPrefix: config.NATS_PREFIX, streamReplicas: config.NATS_STREAM_REPLICAS, logger, registry });
  const outbreaks = createOutbreaksConsumer(ctx, { nc: deps.nc, natsPrefix: config.NATS_PREFIX, streamReplicas: config.NATS_STREAM_REPLICAS, logger, registry });
  const rules = createRulesConsumer(ctx, { nc: deps.nc, natsPrefix: config.NATS_PREFIX, streamReplicas: config.NATS_STREAM_REPLICAS, logger, registry });
  const rulesSweep = createRulesSweepJob(ctx, { intervalMs: config.RULES_SWEEP_INTERVAL_MS, logger });
  const autoClose = createAutoCloseJob(ctx, { intervalMs: config.AUTO_CLOSE_INTERVAL_MS, logger });
  const triage = createTriageConsumers(ctx, { nc: deps.nc, natsPrefix: config.NATS_PREFIX, streamReplicas: config.NATS_STREAM_REPLICAS, logger, registry });
  const triageTraining = createTriageTrainingJob(ctx, { intervalMs: config.TRIAGE_TRAIN_INTERVAL_MS, logger });
  const sla = createSlaJob(ctx, { intervalMs: config.SLA_SWEEP_INTERVAL_MS, logger, onNotice: registerSlaMetrics(registry) });
  const host = createServiceHost({
    name: "tickets",
    rpcServiceName: "tickets.v1.TicketsService",
    db: deps.db,
    config: config,
    nc: deps.nc,
    logger,
    registry,
    routes: (router) => {
      registerRoutes(router, ctx);
      registerPlayerSideRoutes(router, ctx);
      registerAdminRoutes(router, ctx, config.ADMIN_TOKEN);
    },
    workers: [createContentChangedConsumer({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, reference, logger, registry }), routing, triage, outbreaks, rules, rulesSweep, autoClose, sla, triageTraining, createIdempotencyPurgeJobFromConfig(deps.db, config, logger)],
  });
  return Object.assign(host, { autoClose, rulesSweep, sla, reference, triageTraining });
}
