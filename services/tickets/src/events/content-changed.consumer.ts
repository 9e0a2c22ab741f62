// Evicts a company's cached reference data when content announces a change (any content.*
// event but ended agent sessions and audit log entries: tags, fields, games, company settings). A plain NATS subscription is enough: a
// missed event only delays the refresh until the TTL ends, and when events may have been missed
// (a NATS disconnect or reconnect) the whole cache goes. An envelope this release cannot read (an
// unknown version, data off the contract, a type it does not define) still evicts its company; a
// message that is not an envelope clears the whole cache (it may have been about any company) and
// is counted (support_events_dead_lettered_total, consumer tickets-content-changed) and logged,
// not kept: a core message has no stream to replay it from.
import { createCoreSubscription, type NatsConnection } from "@support/bus";
import { contentEventsKeepingReference, readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { ContentReference } from "../reference/content-reference.ts";

export function createContentChangedConsumer(deps: { nc: NatsConnection; natsPrefix: string; reference: ContentReference; logger: Logger; registry?: Registry }): Startable {
  return createCoreSubscription({
    ...deps,
    subjects: ["content.>"],
    consumer: "tickets-content-changed",
    read: readEvent,
    handle: (event) => {
      // Ended agent sessions and audit log entries change no reference data.
      const type = "event" in event ? event.event.type : event.envelope?.type;
      if (type !== undefined && contentEventsKeepingReference.has(type)) return;
      const companyId = "event" in event ? event.event.companyId : event.envelope?.companyId;
      if (companyId !== undefined) deps.reference.evictCompany(companyId);
      else deps.reference.clear();
    },
    missed: () => deps.reference.clear(),
  });
}
