// A plain (core NATS) subscription for a cache every replica keeps fresh from events: no queue
// group, so each replica gets every event; each message read against the event contract (and
// counted and logged when it cannot be, see coreEventReader) and handled in a consumer span;
// and, since a core subscription keeps nothing for a replica that was away, a call to `missed`
// whenever events may have been lost (a subscription error, a NATS disconnect, reconnect or slow
// consumer), so that the cache drops what they would have kept fresh.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { coreEventReader, type CoreRead } from "./consumer.ts";
import type { ContractRead, EventEnvelope } from "./envelope.ts";
import { withConsumerSpan } from "./tracing.ts";

export interface CoreSubscriptionSettings<E> {
  nc: NatsConnection;
  /** The deployment's NATS_PREFIX. */
  natsPrefix: string;
  /** Subjects (event types or wildcards such as `content.>`), without the prefix. */
  subjects: readonly string[];
  /** The name the subscription is counted, logged and traced under (e.g. gateway-content-changed). */
  consumer: string;
  logger: Logger;
  registry?: Registry | undefined;
  /** Reads each envelope against the event contract. */
  read: (envelope: EventEnvelope) => ContractRead<E>;
  /** Handles one message as read. */
  handle: (read: CoreRead<E>) => void;
  /** Events may have been missed: forget what they keep fresh. */
  missed: (reason: string) => void;
}

export interface CoreSubscription {
  /** Resolves once the server has registered the interest. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createCoreSubscription<E>(settings: CoreSubscriptionSettings<E>): CoreSubscription {
  let stop: (() => void) | undefined;
  return {
    async start() {
      if (stop) return;
      const { nc, logger, consumer } = settings;
      const read = coreEventReader({ consumer, logger, registry: settings.registry, read: settings.read });
      const subscriptions = settings.subjects.map((subject) =>
        nc.subscribe(`${settings.natsPrefix}${subject}`, {
          callback: (error, message) => {
            if (error) {
              logger.warn({ err: error, consumer }, "event subscription error: events may have been missed");
              settings.missed("subscription error");
              return;
            }
            void withConsumerSpan(message, consumer, () => settings.handle(read(message)));
          },
        }),
      );
      const statuses = nc.status() as AsyncIterable<{ type: string }> & { stop?: () => void };
      void (async () => {
        for await (const status of statuses) {
          if (status.type === "disconnect" || status.type === "reconnect" || status.type === "slowConsumer") {
            logger.info({ nats: status.type, consumer }, "events may have been missed");
            settings.missed(status.type);
          }
        }
      })().catch((error: unknown) => logger.warn({ err: error, consumer }, "nats status watch ended"));
      await nc.flush();
      stop = () => {
        statuses.stop?.();
        for (const subscription of subscriptions) if (!subscription.isClosed()) subscription.unsubscribe();
      };
    },
    async stop() {
      stop?.();
      stop = undefined;
    },
  };
}
