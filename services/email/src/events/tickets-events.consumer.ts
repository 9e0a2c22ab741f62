// The durable JetStream consumer of the tickets stream, shared by every replica: an agent's
// message on an email ticket queues its mail, a resolved one its survey; a deleted ticket (its player's data erased)
// takes its mails with it. One message at a time: the mails of a ticket are queued in the order
// of its messages, so each one's References name the ones before. Idempotent: a redelivered
// event queues nothing new. While the mail queue is full, events wait in the stream.
import { ack, createConsumer, retryIn, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { EmailContext } from "../context.ts";
import { eraseTicketMail, mailAgentReply, mailCsatRequest } from "../mails/mail.service.ts";

export interface TicketsEventsConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  /** Deliveries after which a failing event goes to the dead-letter store (EVENT_MAX_DELIVERIES). */
  maxDeliveries?: number;
  logger: Logger;
  registry?: Registry;
}

/** How long an agent's reply waits in the stream while the mail queue is full. */
const QUEUE_FULL_HOLD_MS = 30_000;

export function createTicketsEventsConsumer(ctx: EmailContext, settings: TicketsEventsConsumerSettings): Consumer {
  let consumer: Consumer | undefined;
  return {
    async start() {
      consumer = createConsumer({
        nc: settings.nc,
        natsPrefix: settings.natsPrefix,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "tickets", replicas: settings.streamReplicas }),
        durable: "email-tickets",
        filterSubject: `${settings.natsPrefix}tickets.ticket.>`,
        logger: settings.logger,
        concurrency: 1,
        maxAckPending: 1,
        ackWaitMs: 30_000,
        maxDeliver: -1,
        maxDeliveries: settings.maxDeliveries,
        registry: settings.registry,
        read: readEvent,
        async handle(event) {
          if (event.type === "tickets.ticket.message_added" && event.data.type === "AGENT_MESSAGE") {
            const outcome = await mailAgentReply(ctx, {
              sourceEventId: event.id,
              companyId: event.companyId,
              ticketId: event.data.ticketId,
              eventId: event.data.eventId,
              message: event.data.message,
              occurredAt: new Date(event.occurredAt),
            });
            if (outcome === "queue_full") {
              settings.logger.warn({ ticketId: event.data.ticketId }, "mail queue full (EMAIL_QUEUE_MAX): the reply waits in the stream");
              return retryIn(QUEUE_FULL_HOLD_MS);
            }
          } else if (event.type === "tickets.ticket.closed" && event.data.resolutionType === "resolved") {
            const outcome = await mailCsatRequest(ctx, { sourceEventId: event.id, companyId: event.companyId, ticketId: event.data.ticketId });
            if (outcome === "queue_full") return retryIn(QUEUE_FULL_HOLD_MS);
          } else if (event.type === "tickets.ticket.deleted") {
            await eraseTicketMail(ctx, event.companyId, event.data.ticketId);
          }
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
