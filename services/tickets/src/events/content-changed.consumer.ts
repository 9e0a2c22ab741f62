// Evicts a company's cached reference data when content announces a change (any content.*
// event: tags, fields, games, company settings). A plain NATS subscription is enough: a
// missed event only delays the refresh until the TTL ends. An envelope this release cannot read
// (an unknown version, data off the contract) still evicts its company; a message that is not an
// envelope clears the whole cache (it may have been about any company) and is counted
// (support_events_dead_lettered_total, consumer tickets-content-changed) and logged, not kept: a
// core message has no stream to replay it from.
import { coreEventReader, subjectFor, withConsumerSpan, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
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
      const read = coreEventReader({ consumer: "tickets-content-changed", logger: deps.logger, registry: deps.registry, read: readEvent });
      subscription = sub;
      loop = (async () => {
        for await (const message of sub) {
          await withConsumerSpan(message, "tickets-content-changed", () => {
            const event = read(message);
            // An event of a type or version this release does not read still names its company.
            const companyId = "event" in event ? event.event.companyId : event.envelope?.companyId;
            if (companyId !== undefined) deps.reference.evictCompany(companyId);
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
