// Rules' event triggers: durable JetStream consumers of the tickets stream, shared by every
// replica: `tickets-rules` reads the ticket events, `tickets-rules-incidents` outbreak
// detection's incident events (a durable of its own, so that the first keeps its filter as
// deployed). Each triggering event (rule.ts, EVENT_TRIGGERS) runs the company's enabled rules of
// its trigger on each ticket it names; a run is recorded per rule and moment, so a redelivered
// event runs nothing twice, and a failing run is retried by the consumer with a growing delay.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { runRules, type RulesContext } from "../rules/rule.service.ts";
import { triggersOf } from "../rules/rule.ts";

export interface RulesConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  logger: Logger;
  registry?: Registry;
}

const SOURCES = [
  { durable: "tickets-rules", filter: "tickets.ticket.>" },
  { durable: "tickets-rules-incidents", filter: "tickets.incident.>" },
] as const;

export function createRulesConsumer(ctx: RulesContext, settings: RulesConsumerSettings): { start(): Promise<void>; stop(): Promise<void> } {
  const consumers: Consumer[] = [];
  return {
    async start() {
      const stream = await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "tickets", replicas: settings.streamReplicas });
      for (const source of SOURCES) {
        const consumer = createConsumer({
          nc: settings.nc,
          natsPrefix: settings.natsPrefix,
          logger: settings.logger,
          // Runs on one ticket wait for each other on its row lock; other tickets' go on.
          concurrency: 4,
          ackWaitMs: 30_000,
          maxDeliver: -1,
          registry: settings.registry,
          read: readEvent,
          stream,
          durable: source.durable,
          filterSubject: `${settings.natsPrefix}${source.filter}`,
          async handle(event) {
            const moments = triggersOf(event);
            if (moments.length > 0) {
              const applied = await runRules(ctx, moments);
              if (applied > 0) {
                const ticket = moments.length === 1 ? { ticketId: moments[0]!.ticketId } : { tickets: moments.length };
                settings.logger.info({ companyId: event.companyId, ...ticket, trigger: moments[0]!.trigger, applied }, "rules applied");
              }
            }
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
