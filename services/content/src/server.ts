// Builds the content service from its dependencies; no globals, so tests start it in-process.
import { createAwayJob } from "./routing/away.job.ts";
import { createIdempotencyPurgeJobFromConfig } from "@support/idempotency";
import { createMailer } from "@support/mail";
import { createMetricsRegistry } from "@support/metrics";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import { registerAdminRoutes } from "./admin-routes.ts";
import { createServiceAuditConsumer } from "./audit/service-audit.consumer.ts";
import { registerAgentAccessRoutes } from "./agents/agent-access.routes.ts";
import { registerCannedResponseRoutes } from "./canned-responses/canned-response.routes.ts";
import type { ContentDeps } from "./context.ts";
import { registerRoutes } from "./routes.ts";
import { registerSettingsRoutes } from "./settings/settings.routes.ts";

export function createServer(given: ContentDeps): ServiceHost {
  const mailer = given.mailer ?? createMailer({ smtpUrl: given.config.SMTP_URL, from: given.config.MAIL_FROM, logger: given.logger });
  const deps = { ...given, mailer };
  if (given.config.TOTP_ENCRYPTION_KEY === "") {
    given.logger.warn(
      "TOTP_ENCRYPTION_KEY is not set: two-factor secrets are encrypted with the public development key. Set it (base64 of 32 random bytes) anywhere but on a developer's machine",
    );
  }
  // Audit entries other services hand over (webhooks.audit.recorded, players.audit.recorded); its metrics go to the host's registry.
  const registry = createMetricsRegistry();
  const serviceAudit = createServiceAuditConsumer(deps.db, {
    nc: deps.nc,
    natsPrefix: deps.config.NATS_PREFIX,
    streamReplicas: deps.config.NATS_STREAM_REPLICAS,
    maxDeliveries: deps.config.EVENT_MAX_DELIVERIES,
    logger: deps.logger,
    registry,
  });
  return createServiceHost({
    name: "content",
    rpcServiceName: "content.v1.ContentService",
    db: deps.db,
    config: deps.config,
    nc: deps.nc,
    logger: deps.logger,
    registry,
    routes: (router) => {
      registerRoutes(router, deps);
      registerAgentAccessRoutes(router, deps);
      registerCannedResponseRoutes(router, deps);
      registerSettingsRoutes(router, deps);
      registerAdminRoutes(router, deps);
    },
    workers: [
      serviceAudit,
      createIdempotencyPurgeJobFromConfig(deps.db, deps.config, deps.logger),
      createAwayJob(deps.db, { intervalMs: deps.config.AGENT_AWAY_SWEEP_INTERVAL_MS, awayAfterSeconds: deps.config.AGENT_AWAY_AFTER_SECONDS, logger: deps.logger }),
      { start: async () => {}, stop: async () => mailer.close() },
    ],
  });
}
