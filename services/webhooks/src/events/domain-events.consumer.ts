// Durable JetStream consumers of the tickets, players and content streams (of content, the
// audit log's entries only), shared by every replica.
// Each message is handled strictly one after the other (one in flight, max_ack_pending 1):
// the deliveries of one ticket are ordered by insertion, so the events must be inserted in
// the order they were published. The handler is idempotent (a redelivered event inserts
// nothing new), so at-least-once delivery from NATS makes each delivery once. A message that
// cannot be read, or whose fan-out fails EVENT_MAX_DELIVERIES times (a database outage of more
// than about 20 minutes), goes to the dead-letter store (libs/bus) and the next one is handled:
// one bad event must not stop every company's deliveries. A replayed event comes after the
// events that followed it.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { fanOut } from "../deliveries/delivery.service.ts";
import type { WebhooksContext } from "../webhooks/webhook.service.ts";

export interface DomainEventsConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  /** Deliveries after which a failing fan-out dead-letters its event (EVENT_MAX_DELIVERIES). */
  maxDeliveries?: number;
  logger: Logger;
  registry?: Registry;
}

export function createDomainEventsConsumer(ctx: Pick<WebhooksContext, "db" | "box" | "wake">, settings: DomainEventsConsumerSettings): Consumer {
  const consumers: Consumer[] = [];
  const sources = [
    { service: "tickets", durable: "webhooks-tickets", filter: "tickets.ticket.>" },
    // Incidents of outbreak detection: a durable of their own, so that the tickets' consumer
    // (and its order) stays as it is.
    { service: "tickets", durable: "webhooks-tickets-incidents", filter: "tickets.incident.>" },
    // Rules' callWebhook actions (tickets.rule.webhook_requested): their own durable too.
    { service: "tickets", durable: "webhooks-tickets-rules", filter: "tickets.rule.>" },
    // players.deletion.started (erasure begins) and players.player.deleted (done) matter; the
    // rest is acknowledged without effect.
    { service: "players", durable: "webhooks-players", filter: "players.>" },
    { service: "content", durable: "webhooks-content-audit", filter: "content.audit.>" },
  ];
  return {
    async start() {
      for (const source of sources) {
        const stream = await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: source.service, replicas: settings.streamReplicas });
        const consumer = createConsumer({
          nc: settings.nc,
          natsPrefix: settings.natsPrefix,
          stream,
          durable: source.durable,
          filterSubject: `${settings.natsPrefix}${source.filter}`,
          logger: settings.logger,
          concurrency: 1,
          maxAckPending: 1,
          // A few short statements per event: a replica that died holding one hands it over soon.
          ackWaitMs: 10_000,
          maxDeliver: -1,
          maxDeliveries: settings.maxDeliveries,
          registry: settings.registry,
          // Read against the event contract: data that does not match goes to the dead letters.
          read: readEvent,
          async handle(event) {
            // A failure throws: the consumer retries with backoff, and the order holds (up to
            // maxDeliveries, then the event is dead-lettered and the next one goes).
            await fanOut(ctx, event);
            return ack;
          },
        });
        await consumer.start();
        consumers.push(consumer);
      }
    },
    async stop() {
      for (const consumer of consumers.splice(0)) await consumer.stop();
    },
  };
}
