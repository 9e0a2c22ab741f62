// Triage's triggers: durable JetStream consumers shared by every replica. A player's message
// classifies its ticket (the first one only: the run is recorded once per ticket, so a
// redelivery or a later message does nothing; a ticket created without text is classified on its
// first player message). A change of a content tag or field retrains the company's model when
// its AI tags or fields no longer match the model's.
import { ack, createConsumer, streamOfService, type Consumer } from "@support/bus";
import { readEvent } from "@support/events";
import { classifyNewTicket, retrainIfSchemaChanged, type TriageContext } from "../triage/triage.service.ts";
import type { RoutingConsumerSettings } from "./routing.consumer.ts";

const SCHEMA_EVENTS = new Set(["content.tag.created", "content.tag.updated", "content.tag.retired", "content.field.created", "content.field.updated", "content.field.retired"]);

export function createTriageConsumers(ctx: TriageContext, settings: RoutingConsumerSettings): { start(): Promise<void>; stop(): Promise<void> } {
  let consumers: Consumer[] = [];
  const common = {
    nc: settings.nc,
    natsPrefix: settings.natsPrefix,
    logger: settings.logger,
    concurrency: 4,
    ackWaitMs: 60_000,
    maxDeliver: -1,
    registry: settings.registry,
    read: readEvent,
  };
  return {
    async start() {
      const tickets = createConsumer({
        ...common,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "tickets", replicas: settings.streamReplicas }),
        durable: "tickets-triage",
        filterSubject: `${settings.natsPrefix}tickets.ticket.message_added`,
        async handle(event) {
          if (event.type === "tickets.ticket.message_added" && event.data.type === "PLAYER_MESSAGE") {
            await classifyNewTicket(ctx, event.companyId, event.data.ticketId, event.data.message);
          }
          return ack;
        },
      });
      const content = createConsumer({
        ...common,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "content", replicas: settings.streamReplicas }),
        durable: "tickets-triage-content",
        filterSubject: `${settings.natsPrefix}content.>`,
        async handle(event) {
          if (SCHEMA_EVENTS.has(event.type)) await retrainIfSchemaChanged(ctx, event.companyId);
          return ack;
        },
      });
      consumers = [tickets, content];
      for (const consumer of consumers) await consumer.start();
    },
    async stop() {
      for (const consumer of consumers.reverse()) await consumer.stop();
      consumers = [];
    },
  };
}
