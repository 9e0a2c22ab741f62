// Outbreak detection's trigger: a durable JetStream consumer of new tickets, shared by every
// replica. Detection is idempotent (a ticket already decided is skipped), so a redelivered or
// duplicated event links nothing twice; a failing run is retried with a growing delay.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { createSettingsCache, createVectorCache, detectOutbreak, type OutbreaksContext } from "../outbreaks/outbreaks.service.ts";

export interface OutbreaksConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  logger: Logger;
  registry?: Registry;
}

export function createOutbreaksConsumer(ctx: OutbreaksContext, settings: OutbreaksConsumerSettings): { start(): Promise<void>; stop(): Promise<void> } {
  let consumer: Consumer | undefined;
  const vectors = createVectorCache();
  const settingsCache = createSettingsCache(ctx.db);
  return {
    async start() {
      consumer = createConsumer({
        nc: settings.nc,
        natsPrefix: settings.natsPrefix,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "tickets", replicas: settings.streamReplicas }),
        durable: "tickets-outbreaks",
        filterSubject: `${settings.natsPrefix}tickets.ticket.created`,
        logger: settings.logger,
        // Runs of one game wait for each other on the game's lock; other games' go on.
        concurrency: 4,
        ackWaitMs: 30_000,
        maxDeliver: -1,
        registry: settings.registry,
        read: readEvent,
        async handle(event) {
          if (event.type === "tickets.ticket.created") await detectOutbreak({ ...ctx, vectors, settings: settingsCache }, event.companyId, event.data.id, event.data.gameId);
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
