// Keeps the gateway's caches honest: content publishes an event after every change it
// commits, and every gateway replica listens (a plain core NATS subscription, no queue
// group, so each replica gets every event) and evicts what the event makes stale. A message that
// is not an envelope is counted (support_events_dead_lettered_total, consumer
// gateway-content-changed) and logged, not kept: a core message has no stream to replay it from.
import { coreEventReader, namedByEvent, withConsumerSpan, type NatsConnection } from "@support/bus";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { ApiKeyCache } from "../auth.ts";
import type { ReferenceCaches } from "../cache.ts";

export const API_KEY_REVOKED = "content.api_key.revoked";

export interface EventTargets {
  reference: ReferenceCaches;
  keys: ApiKeyCache;
}

/**
 * Applies one content event: the company's reference caches go, and a key named by
 * `data.keyHash` (a revoked key, or a new one that may be cached as unknown) goes too.
 * Returns false for a message that is not an envelope.
 */
export function applyContentEvent(envelope: unknown, targets: EventTargets): boolean {
  if (envelope === null || typeof envelope !== "object") return false;
  const { type, companyId, data } = envelope as { type?: unknown; companyId?: unknown; data?: unknown };
  if (typeof type !== "string" || typeof companyId !== "string") return false;
  targets.reference.evictCompany(companyId);
  const keyHash = data !== null && typeof data === "object" ? (data as { keyHash?: unknown }).keyHash : undefined;
  if (typeof keyHash === "string") targets.keys.evict(keyHash);
  return true;
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
  const readEvent = coreEventReader({ consumer: "gateway-content-changed", logger, registry });
  const subscription = nc.subscribe(`${prefix}content.>`, {
    callback: (error, msg) => {
      if (error) {
        logger.warn({ err: error }, "content event subscription error; clearing caches");
        clearAll(targets);
        return;
      }
      void withConsumerSpan(msg, "gateway-content-changed", () => {
        // An envelope of a version this gateway does not know still evicts the company it
        // names, if it names one: an eviction is never wrong (only a cache miss).
        const named = namedByEvent(readEvent(msg));
        if (named !== undefined) applyContentEvent(named, targets);
      });
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
