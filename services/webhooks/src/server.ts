// Builds the webhooks service from its dependencies; no globals, so tests start it in-process.
import { createIdempotencyPurgeJobFromConfig } from "@support/idempotency";
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createMetricsRegistry } from "@support/metrics";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import { registerAdminRoutes } from "./admin-routes.ts";
import { createContentClient, createGameDirectory } from "./clients.ts";
import type { WebhooksConfig } from "./config.ts";
import type { WebhooksDatabase } from "./database.ts";
import { registerDeliveryMetrics } from "./deliveries/delivery.metrics.ts";
import { parseRetrySchedule } from "./deliveries/delivery.ts";
import { createDomainEventsConsumer } from "./events/domain-events.consumer.ts";
import { createDeliveryEngine, type DeliveryEngine } from "./jobs/delivery.job.ts";
import { createLogRetentionJob, type LogRetentionJob } from "./jobs/log-retention.job.ts";
import { registerRoutes } from "./routes.ts";
import { createSecretBox, DEVELOPMENT_KEY, parseSecretsKey } from "./security/secret-box.ts";
import type { GameDirectory, WebhooksContext } from "./webhooks/webhook.service.ts";

export interface WebhooksDeps {
  config: WebhooksConfig;
  logger: Logger;
  db: Kysely<WebhooksDatabase>;
  nc: NatsConnection;
  /** Games of a company; by default content.GetGame at CONTENT_URL. */
  games?: GameDirectory;
}

export interface WebhooksServer extends ServiceHost {
  /** The delivery engine (tests wake it; operators see it in the logs). */
  engine: DeliveryEngine;
  /** The sweep of old deliveries (tests call runOnce). */
  logRetention: LogRetentionJob;
}

export function createServer(deps: WebhooksDeps): WebhooksServer {
  const { config, logger } = deps;
  if (config.WEBHOOK_SECRETS_KEY === "") {
    logger.warn(
      "WEBHOOK_SECRETS_KEY is not set: signing secrets are encrypted with the public development key. Set it (base64 of 32 random bytes) anywhere but on a developer's machine",
    );
  }
  const box = createSecretBox(config.WEBHOOK_SECRETS_KEY === "" ? DEVELOPMENT_KEY : parseSecretsKey(config.WEBHOOK_SECRETS_KEY));
  const policy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  if (policy.allowHttp || policy.allowPrivateTargets) logger.warn(policy, "webhook target safety loosened: for local use and tests only");
  // One registry for the process: its content client and consumers record into it, and the host serves it.
  const registry = createMetricsRegistry();
  const engine = createDeliveryEngine({
    db: deps.db,
    box,
    logger,
    policy,
    metrics: registerDeliveryMetrics(registry, deps.db, logger),
    concurrency: config.WEBHOOK_CONCURRENCY,
    perWebhookConcurrency: config.WEBHOOK_PER_WEBHOOK_CONCURRENCY,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retrySchedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE),
    retryAfterMaxSeconds: config.WEBHOOK_RETRY_AFTER_MAX_SECONDS,
    disableAfterHours: config.WEBHOOK_DISABLE_AFTER_HOURS,
  });
  const ctx: WebhooksContext = {
    db: deps.db,
    box,
    games: deps.games ?? createGameDirectory(createContentClient(config, registry)),
    policy,
    logger,
    wake: () => engine.wake(),
  };
  const consumer = createDomainEventsConsumer(ctx, {
    nc: deps.nc,
    natsPrefix: config.NATS_PREFIX,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    logger,
    registry,
  });
  const logRetention = createLogRetentionJob(deps.db, {
    retentionDays: config.WEBHOOK_LOG_RETENTION_DAYS,
    intervalMs: config.WEBHOOK_LOG_SWEEP_INTERVAL_MS,
    logger,
  });
  const host = createServiceHost({
    name: "webhooks",
    rpcServiceName: "webhooks.v1.WebhooksService",
    db: deps.db,
    config,
    nc: deps.nc,
    logger,
    registry,
    routes: (router) => {
      registerRoutes(router, ctx);
      registerAdminRoutes(router, ctx, config.ADMIN_TOKEN);
    },
    // The engine stops last: deliveries the consumer inserted while stopping are still sent at the next start.
    workers: [engine, consumer, logRetention, createIdempotencyPurgeJobFromConfig(deps.db, config, logger)],
  });
  return Object.assign(host, { engine, logRetention });
}
