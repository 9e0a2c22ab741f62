// The durable JetStream consumer of the audit entries other services hand to the company's
// audit log: webhooks.audit.recorded (changes of webhook subscriptions made by an admin in the
// settings), which the webhooks service writes to its outbox in the change's transaction, since
// it must not write content's tables. Each entry is recorded with writeAudit, like content's
// own (so it is published as content.audit.recorded too), once per event id: a redelivered
// event records nothing. One message at a time, so entries keep their order; an event that
// cannot be read, or whose recording fails EVENT_MAX_DELIVERIES times, goes to the dead letters.
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

/** Records one handed-over entry; false when its event was recorded before. */
export async function recordServiceAudit(db: Kysely<ContentDatabase>, event: DomainEvent<"webhooks.audit.recorded">): Promise<boolean> {
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
  let consumer: Consumer | undefined;
  return {
    async start() {
      consumer = createConsumer({
        nc: settings.nc,
        natsPrefix: settings.natsPrefix,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "webhooks", replicas: settings.streamReplicas ?? 1 }),
        durable: "content-webhooks-audit",
        filterSubject: `${settings.natsPrefix}webhooks.audit.>`,
        logger: settings.logger,
        concurrency: 1,
        maxAckPending: 1,
        ackWaitMs: 10_000,
        maxDeliver: -1,
        maxDeliveries: settings.maxDeliveries,
        registry: settings.registry,
        read: readEvent,
        async handle(event) {
          if (event.type === "webhooks.audit.recorded") await recordServiceAudit(db, event);
          return ack;
        },
      });
      await consumer.start();
    },
    async stop() {
      await consumer?.stop();
      consumer = undefined;
    },
  };
}
