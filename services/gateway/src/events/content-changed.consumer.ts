// Keeps the gateway's caches honest: content publishes an event after every change it
// commits, and every gateway replica listens (a plain core NATS subscription, no queue
// group, so each replica gets every event) and evicts what the event makes stale. A message
// this release cannot read is counted (support_events_dead_lettered_total, consumer
// gateway-content-changed) and logged, not kept: a core message has no stream to replay it from.
import { createCoreSubscription, type CoreRead, type NatsConnection } from "@support/bus";
import { contentEventsKeepingReference, readEvent, type DomainEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { ApiKeyCache } from "../auth.ts";
import type { ReferenceCaches } from "../cache.ts";
import type { LogoCache } from "../routes/game-logos.ts";

export interface EventTargets {
  reference: ReferenceCaches;
  keys: ApiKeyCache;
  /** Games' logos (routes/game-logos.ts), when the gateway serves them. */
  logos?: LogoCache;
}

/**
 * Applies one content event: the company's reference caches go, and the key an API key event
 * names (a revoked key, or a new one that may be cached as unknown) goes too. An event this
 * release cannot read (a newer type or version) still evicts its company, and every cached key
 * in case it named one: an eviction costs only a cache miss. A message that is no envelope
 * changes nothing.
 */
export function applyContentEvent(read: CoreRead<DomainEvent>, targets: EventTargets): void {
  // Ended sessions of the support application (their own consumer handles them,
  // agent-sessions-ended.consumer.ts) and audit log entries change no reference data and no
  // key: here they would evict for nothing.
  const type = "event" in read ? read.event.type : read.envelope?.type;
  if (type !== undefined && contentEventsKeepingReference.has(type)) return;
  if (!("event" in read)) {
    // A message that is no envelope names nothing: it is counted and logged only.
    if (!read.envelope) return;
    targets.reference.evictCompany(read.envelope.companyId);
    targets.keys.clear();
    targets.logos?.clear();
    return;
  }
  const { event } = read;
  targets.reference.evictCompany(event.companyId);
  if (event.type === "content.api_key.created" || event.type === "content.api_key.revoked") targets.keys.evict(event.data.keyHash);
  // A new or removed logo (or a deleted game): the game's cached logo goes.
  if (event.type === "content.game.branding_updated") targets.logos?.evictGame(event.data.gameId);
  if (event.type === "content.game.deleted") targets.logos?.evictGame(event.data.id);
}

/** Forgets everything: after a NATS outage, events may have been missed. */
export function clearAll(targets: EventTargets): void {
  targets.reference.clear();
  targets.keys.clear();
  targets.logos?.clear();
}

/** The subscription to `<prefix>content.>`; start() resolves once the server has registered the interest. */
export function createContentChangedConsumer(deps: { nc: NatsConnection; natsPrefix: string; targets: EventTargets; logger: Logger; registry?: Registry }): Startable {
  return createCoreSubscription({
    ...deps,
    subjects: ["content.>"],
    consumer: "gateway-content-changed",
    read: readEvent,
    handle: (read) => applyContentEvent(read, deps.targets),
    missed: () => clearAll(deps.targets),
  });
}
