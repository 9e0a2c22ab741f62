// The durable JetStream consumer of content's stream, shared by every replica: it keeps the
// games the email channel needs (games/): a new or changed game and its environments (with
// their current tokens), a deleted game.
// Idempotent (upserts), so a redelivery changes nothing.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { EmailContext } from "../context.ts";
import { forgetGame, rememberEnvironment, rememberGame, rememberRotatedToken } from "../games/game.service.ts";

export interface ContentEventsConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  maxDeliveries?: number;
  logger: Logger;
  registry?: Registry;
}

export function createContentEventsConsumer(ctx: Pick<EmailContext, "db">, settings: ContentEventsConsumerSettings): Consumer {
  let consumer: Consumer | undefined;
  return {
    async start() {
      consumer = createConsumer({
        nc: settings.nc,
        natsPrefix: settings.natsPrefix,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "content", replicas: settings.streamReplicas }),
        durable: "email-content",
        filterSubject: `${settings.natsPrefix}content.>`,
        logger: settings.logger,
        concurrency: 1,
        maxAckPending: 1,
        ackWaitMs: 10_000,
        maxDeliver: -1,
        maxDeliveries: settings.maxDeliveries,
        registry: settings.registry,
        read: readEvent,
        async handle(event) {
          if (event.type === "content.game.created" || event.type === "content.game.updated") {
            await rememberGame(ctx, {
              gameId: event.data.id, companyId: event.companyId, name: event.data.name, languages: event.data.languages, blockUnverifiedPlayers: event.data.blockUnverifiedPlayers,
            });
          } else if (event.type === "content.environment.created") {
            await rememberEnvironment(ctx, { environmentId: event.data.id, gameId: event.data.gameId, token: event.data.token, at: new Date(event.occurredAt) });
          } else if (event.type === "content.environment.token_rotated") {
            await rememberRotatedToken(ctx, { environmentId: event.data.id, gameId: event.data.gameId, token: event.data.token, at: new Date(event.occurredAt) });
          } else if (event.type === "content.game.deleted") {
            await forgetGame(ctx, event.data.id);
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
