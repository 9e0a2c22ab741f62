// Evicts a company's cached reference data when content announces a change (any content.*
// event: tags, fields, games, company settings). A plain NATS subscription is enough: a
// missed event only delays the refresh until the TTL ends.
import { subjectFor, withConsumerSpan, type EventEnvelope, type NatsConnection } from "@support/bus";
import type { Logger } from "@support/logging";
import type { Startable } from "@support/runtime";
import type { ContentReference } from "../reference/content-reference.ts";

export function createContentChangedConsumer(deps: { nc: NatsConnection; natsPrefix: string; reference: ContentReference; logger: Logger }): Startable {
  let subscription: ReturnType<NatsConnection["subscribe"]> | undefined;
  let loop: Promise<void> | undefined;
  return {
    start() {
      const sub = deps.nc.subscribe(subjectFor(deps.natsPrefix, "content.>"));
      subscription = sub;
      loop = (async () => {
        for await (const message of sub) {
          await withConsumerSpan(message, "tickets-content-changed", () => {
            try {
              const envelope = message.json<EventEnvelope>();
              if (typeof envelope.companyId === "string") deps.reference.evictCompany(envelope.companyId);
              else deps.reference.clear();
            } catch (error) {
              deps.logger.warn({ err: error, subject: message.subject }, "unreadable content event; clearing the reference cache");
              deps.reference.clear();
            }
          });
        }
      })();
    },
    async stop() {
      subscription?.unsubscribe();
      await loop;
    },
  };
}
