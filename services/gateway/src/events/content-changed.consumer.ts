// Keeps the gateway's caches honest: content publishes an event after every change it
// commits, and every gateway replica listens (a plain core NATS subscription, no queue
// group, so each replica gets every event) and evicts what the event makes stale. A message
// this release cannot read is counted (support_events_dead_lettered_total, consumer
// gateway-content-changed) and logged, not kept: a core message has no stream to replay it from.
import { coreEventReader, withConsumerSpan, type CoreRead, type NatsConnection } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { ApiKeyCache } from "../auth.ts";
import { AGENT_SESSIONS_ENDED } from "./agent-sessions-ended.consumer.ts";
import type { ReferenceCaches } from "../cache.ts";

export interface EventTargets {
  reference: ReferenceCaches;
  keys: ApiKeyCache;
}

/**
 * Applies one content event: the company's reference caches go, and the key an API key event
 * names (a revoked key, or a new one that may be cached as unknown) goes too. An event this
 * release cannot read (a newer type or version) still evicts its company, and every cached key
 * in case it named one: an eviction costs only a cache miss. A message that is no envelope
 * changes nothing.
 */
export function applyContentEvent(read: CoreRead<DomainEvent>, targets: EventTargets): void {
  // Ended sessions of the support application change no reference data and no key: their own
  // consumer (agent-sessions-ended.consumer.ts) handles them, here they would evict for nothing.
  if (("event" in read ? read.event.type : read.envelope?.type) === AGENT_SESSIONS_ENDED) return;
  if (!("event" in read)) {
    // A message that is no envelope names nothing: it is counted and logged only.
    if (!read.envelope) return;
    targets.reference.evictCompany(read.envelope.companyId);
    targets.keys.clear();
    return;
  }
  const { event } = read;
  targets.reference.evictCompany(event.companyId);
  if (event.type === "content.api_key.created" || event.type === "content.api_key.revoked") targets.keys.evict(event.data.keyHash);
}

/** Forgets everything: after a NATS outage, events may have been missed. */
export function clearAll(targets: EventTargets): void {
  targets.reference.clear();
  targets.keys.clear();
}

/** The subscription to `<prefix>content.>`; start() resolves once the server has registered the interest. */
export function createContentChangedConsumer(deps: { nc: NatsConnection; natsPrefix: string; targets: EventTargets; logger: Logger; registry?: Registry }): Startable {
  let unsubscribe: (() => void) | undefined;
  return {
    async start() {
      unsubscribe ??= await subscribe(deps.nc, deps.natsPrefix, deps.targets, deps.logger, deps.registry);
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}

async function subscribe(nc: NatsConnection, prefix: string, targets: EventTargets, logger: Logger, registry: Registry | undefined): Promise<() => void> {
  const read = coreEventReader({ consumer: "gateway-content-changed", logger, registry, read: readEvent });
  const subscription = nc.subscribe(`${prefix}content.>`, {
    callback: (error, msg) => {
      if (error) {
        logger.warn({ err: error }, "content event subscription error; clearing caches");
        clearAll(targets);
        return;
      }
      void withConsumerSpan(msg, "gateway-content-changed", () => applyContentEvent(read(msg), targets));
    },
  });
  const statuses = nc.status() as AsyncIterable<{ type: string }> & { stop?: () => void };
  void (async () => {
    for await (const status of statuses) {
      if (status.type === "disconnect" || status.type === "reconnect" || status.type === "slowConsumer") {
        logger.info({ nats: status.type }, "clearing gateway caches: content events may have been missed");
        clearAll(targets);
      }
    }
  })().catch((error: unknown) => logger.warn({ err: error }, "nats status watch ended"));
  await nc.flush();
  return () => {
    statuses.stop?.();
    if (!subscription.isClosed()) subscription.unsubscribe();
  };
}
