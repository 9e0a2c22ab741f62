// Builds the email service from its dependencies; no globals, so tests start it in-process.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { addressOf, createMailer, type Mailer } from "@support/mail";
import { createMetricsRegistry } from "@support/metrics";
import { createServiceHost, type ServiceHost } from "@support/runtime";
import { parseRetrySchedule } from "@support/config";
import { createCompanySenders, createContentClient, createFileStore, createGameNames, createMediaClient, createTicketReader, createTicketsClient } from "./clients.ts";
import { dkimOf, type EmailConfig } from "./config.ts";
import type { CompanySenders, EmailContext, FileStore, GameNames, TicketReader } from "./context.ts";
import type { EmailDatabase } from "./database.ts";
import { createContentEventsConsumer } from "./events/content-events.consumer.ts";
import { createTicketsEventsConsumer } from "./events/tickets-events.consumer.ts";
import { createMailDeliveryJob, type MailDeliveryJob } from "./jobs/mail-delivery.job.ts";
import { registerMailMetrics } from "./mails/mail.metrics.ts";
import { receiveMail } from "./inbound/inbound-mail.service.ts";
import { createInboundRetentionJob } from "./jobs/inbound-retention.job.ts";
import { registerRoutes } from "./routes.ts";
import { createSmtpListener } from "./smtp-listener.ts";

export interface EmailDeps {
  config: EmailConfig;
  logger: Logger;
  db: Kysely<EmailDatabase>;
  nc: NatsConnection;
  /** By default the tickets service at TICKETS_URL. */
  tickets?: TicketReader;
  /** By default content.GetGame at CONTENT_URL. */
  games?: GameNames;
  /** By default content.GetCompany at CONTENT_URL. */
  senders?: CompanySenders;
  /** By default media.StoreAttachment at MEDIA_URL. */
  files?: FileStore;
  /** By default SMTP_URL's relay. */
  mailer?: Mailer;
}

export interface EmailServer extends ServiceHost {
  /** The sender (tests run it once). */
  delivery: MailDeliveryJob;
  /** The port of the SMTP listener of players' answers; undefined when it does not run (no EMAIL_REPLY_ADDRESS). */
  smtpPort(): number | undefined;
}

/** The longest an SMTP step may take (connection, greeting, each command). */
const SMTP_TIMEOUT_MS = 10_000;

export function createServer(deps: EmailDeps): EmailServer {
  const { config, logger } = deps;
  const mailer = deps.mailer ?? createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, logger, timeoutMs: SMTP_TIMEOUT_MS, dkim: dkimOf(config) });
  if (!mailer.configured) logger.warn("SMTP_URL is not set: mails to players wait, deferred, until a relay is configured");
  const registry = createMetricsRegistry();
  const metrics = registerMailMetrics(registry, deps.db, logger);
  const delivery = createMailDeliveryJob({
    db: deps.db,
    mailer,
    logger,
    metrics,
    concurrency: config.EMAIL_CONCURRENCY,
    pollIntervalMs: config.EMAIL_POLL_INTERVAL_MS,
    retrySchedule: parseRetrySchedule(config.EMAIL_RETRY_SCHEDULE),
    attemptTimeoutMs: SMTP_TIMEOUT_MS,
  });
  let contentClient: ReturnType<typeof createContentClient> | undefined;
  const content = () => (contentClient ??= createContentClient(config, registry));
  const ctx: EmailContext = {
    db: deps.db,
    tickets: deps.tickets ?? createTicketReader(createTicketsClient(config, registry)),
    games: deps.games ?? createGameNames(content()),
    senders: deps.senders ?? createCompanySenders(content(), { ttlMs: config.EMAIL_SENDER_CACHE_MS }),
    files: deps.files ?? createFileStore(createMediaClient(config, registry)),
    settings: {
      fromAddress: addressOf(config.MAIL_FROM),
      replyAddress: config.EMAIL_REPLY_ADDRESS,
      quotedMessages: config.EMAIL_QUOTED_MESSAGES,
      queueMax: config.EMAIL_QUEUE_MAX,
      webSupportUrl: config.WEB_SUPPORT_URL,
      inboundPerSenderPerHour: config.EMAIL_INBOUND_PER_SENDER_PER_HOUR,
      inboundPerTicketPerHour: config.EMAIL_INBOUND_PER_TICKET_PER_HOUR,
    },
    logger,
    wake: () => delivery.wake(),
  };
  const consumer = createTicketsEventsConsumer(ctx, {
    nc: deps.nc,
    natsPrefix: config.NATS_PREFIX,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    logger,
    registry,
  });
  const contentConsumer = createContentEventsConsumer(ctx, {
    nc: deps.nc,
    natsPrefix: config.NATS_PREFIX,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    maxDeliveries: config.EVENT_MAX_DELIVERIES,
    logger,
    registry,
  });
  // Players' answers come by SMTP to the reply address: without one there is nothing to take.
  const smtp = config.EMAIL_REPLY_ADDRESS === ""
    ? undefined
    : createSmtpListener({
        host: config.EMAIL_SMTP_HOST,
        port: config.EMAIL_SMTP_PORT,
        maxBytes: config.EMAIL_INBOUND_MAX_BYTES,
        own: { replyAddress: config.EMAIL_REPLY_ADDRESS, fromAddress: ctx.settings.fromAddress },
        logger,
        async receive(mail) {
          const outcome = await receiveMail(ctx, mail);
          metrics.received(outcome.status, outcome.status === "accepted" ? null : outcome.reason);
          return outcome;
        },
      });
  const retention = createInboundRetentionJob(deps.db, { retentionDays: config.EMAIL_INBOUND_RETENTION_DAYS, logger });
  const host = createServiceHost({
    name: "email",
    rpcServiceName: "email.v1.EmailService",
    db: deps.db,
    config,
    nc: deps.nc,
    logger,
    registry,
    routes: (router) => registerRoutes(router, ctx),
    // Stopped in reverse: the consumer first, then the sender (mails the consumer queued while
    // stopping are sent at the next start), then the relay connections.
    // The SMTP listener stops first: no mail is taken while the rest stops.
    workers: [{ start() {}, stop: async () => mailer.close() }, delivery, contentConsumer, consumer, retention, ...(smtp ? [smtp] : [])],
  });
  return Object.assign(host, { delivery, smtpPort: () => smtp?.port() });
}
