// Rules' event triggers: one durable JetStream consumer of the tickets stream, shared by every
// replica. Each triggering event (rule.ts, EVENT_TRIGGERS) runs the company's enabled rules of
// its trigger; a run is recorded per rule and event, so a redelivered event runs nothing twice,
// and a failing run is retried by the consumer with a growing delay.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { runRules, type RulesContext } from "../rules/rule.service.ts";
import { triggerOf } from "../rules/rule.ts";

export interface RulesConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  logger: Logger;
  registry?: Registry;
}

export function createRulesConsumer(ctx: RulesContext, settings: RulesConsumerSettings): { start(): Promise<void>; stop(): Promise<void> } {
  let consumer: Consumer | undefined;
  return {
    async start() {
      consumer = createConsumer({
        nc: settings.nc,
        natsPrefix: settings.natsPrefix,
        logger: settings.logger,
        // Runs on one ticket wait for each other on its row lock; other tickets' go on.
        concurrency: 4,
        ackWaitMs: 30_000,
        maxDeliver: -1,
        registry: settings.registry,
        read: readEvent,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "tickets", replicas: settings.streamReplicas }),
        durable: "tickets-rules",
        filterSubject: `${settings.natsPrefix}tickets.ticket.>`,
        async handle(event) {
          const moment = triggerOf(event);
          if (moment) {
            const applied = await runRules(ctx, moment);
            if (applied > 0) settings.logger.info({ companyId: moment.companyId, ticketId: moment.ticketId, trigger: moment.trigger, applied }, "rules applied");
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
