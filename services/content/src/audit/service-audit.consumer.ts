// The durable JetStream consumers of the audit entries other services hand to the company's
// audit log, since they must not write content's tables: webhooks.audit.recorded (changes of
// webhook subscriptions made by an admin in the settings), players.audit.recorded (players
// blocked, unblocked, their scheduled deletion cancelled or their data deleted by a user of the
// company) and tickets.audit.recorded (the automation settings: rules, SLA, triage threshold,
// outbreaks, changed by an admin or a tenant file), each written to its service's outbox in the
// change's transaction. One consumer per
// service's stream. Each entry is recorded with writeAudit, like content's own (so it is
// published as content.audit.recorded too), once per event id: a redelivered event records
// nothing. One message at a time per stream, so a service's entries keep their order; an event
// that cannot be read, or whose recording fails EVENT_MAX_DELIVERIES times, goes to the dead letters.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { ContentDatabase } from "../database.ts";
import { writeAudit, type AuditAction, type AuditActor } from "./audit-log.ts";

export interface ServiceAuditConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas?: number;
  maxDeliveries?: number;
  logger: Logger;
  registry?: Registry;
}

/** The audit events content records, by the service that hands them over. */
const SOURCES = [
  { service: "webhooks", durable: "content-webhooks-audit", type: "webhooks.audit.recorded" },
  { service: "players", durable: "content-players-audit", type: "players.audit.recorded" },
  { service: "tickets", durable: "content-tickets-audit", type: "tickets.audit.recorded" },
] as const;

export type ServiceAuditEvent = DomainEvent<(typeof SOURCES)[number]["type"]>;

const isServiceAudit = (event: DomainEvent): event is ServiceAuditEvent => SOURCES.some((source) => source.type === event.type);

/** Records one handed-over entry; false when its event was recorded before. */
export async function recordServiceAudit(db: Kysely<ContentDatabase>, event: ServiceAuditEvent): Promise<boolean> {
  const { data } = event;
  return writeAudit(
    db,
    {
      action: data.action as AuditAction,
      companyId: event.companyId,
      userId: null,
      actor: data.actor as AuditActor,
      target: data.target,
      before: data.before,
      after: data.after,
      detail: data.detail,
      clientAddress: data.clientAddress,
      sourceEventId: event.id,
    },
    new Date(data.createdAt),
  );
}

export function createServiceAuditConsumer(db: Kysely<ContentDatabase>, settings: ServiceAuditConsumerSettings): Consumer {
  let consumers: Consumer[] = [];
  return {
    async start() {
      for (const source of SOURCES) {
        const consumer = createConsumer({
          nc: settings.nc,
          natsPrefix: settings.natsPrefix,
          stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: source.service, replicas: settings.streamReplicas ?? 1 }),
          durable: source.durable,
          filterSubject: `${settings.natsPrefix}${source.service}.audit.>`,
          logger: settings.logger,
          concurrency: 1,
          maxAckPending: 1,
          ackWaitMs: 10_000,
          maxDeliver: -1,
          maxDeliveries: settings.maxDeliveries,
          registry: settings.registry,
          read: readEvent,
          async handle(event) {
            if (isServiceAudit(event)) await recordServiceAudit(db, event);
            return ack;
          },
        });
        consumers.push(consumer);
        await consumer.start();
      }
    },
    async stop() {
      for (const consumer of consumers) await consumer.stop();
      consumers = [];
    },
  };
}
