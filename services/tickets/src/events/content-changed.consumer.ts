// Evicts a company's cached reference data when content announces a change (any content.*
// event: tags, fields, games, company settings). A plain NATS subscription is enough: a
// missed event only delays the refresh until the TTL ends. A message that is not an envelope
// of a known version clears the whole cache (it may have been about any company) and is counted
// (support_events_dead_lettered_total, consumer tickets-content-changed) and logged, not kept: a
// core message has no stream to replay it from.
import { coreEventReader, subjectFor, withConsumerSpan, type NatsConnection } from "@support/bus";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { ContentReference } from "../reference/content-reference.ts";

export function createContentChangedConsumer(deps: { nc: NatsConnection; natsPrefix: string; reference: ContentReference; logger: Logger; registry?: Registry }): Startable {
  let subscription: ReturnType<NatsConnection["subscribe"]> | undefined;
  let loop: Promise<void> | undefined;
  return {
    start() {
      const sub = deps.nc.subscribe(subjectFor(deps.natsPrefix, "content.>"));
      const readEvent = coreEventReader({ consumer: "tickets-content-changed", logger: deps.logger, registry: deps.registry });
      subscription = sub;
      loop = (async () => {
        for await (const message of sub) {
          await withConsumerSpan(message, "tickets-content-changed", () => {
            const read = readEvent(message);
            if ("envelope" in read) deps.reference.evictCompany(read.envelope.companyId);
            else deps.reference.clear();
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
