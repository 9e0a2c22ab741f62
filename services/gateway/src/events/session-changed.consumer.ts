// Keeps the gateway's session cache honest: players publishes players.session.verified (the
// player proved the session's email) and players.session.ended (the player's erasure ended the
// sessions). Every replica listens (a plain core subscription, no queue group, so each gets
// every event) and marks the named sessions, whose cached copies are then read again or
// refused on their next use. After a NATS disconnect the whole cache goes: events may have
// been missed. A message this release cannot read is counted (support_events_dead_lettered_total,
// consumer gateway-session-changed) and logged (a core message has no stream to replay it from),
// and, if it was an envelope, the whole cache goes: it may have named any session, and a cache
// miss costs one read.
import { createCoreSubscription, type CoreRead, type NatsConnection } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { SessionCache } from "../routes/player-side.ts";

const SESSION_EVENTS = ["players.session.verified", "players.session.ended"] as const;

/** Marks the sessions a session event names; an event this release cannot read clears the cache. */
export function applySessionEvent(read: CoreRead<DomainEvent>, sessions: Pick<SessionCache, "invalidate" | "clear">): void {
  if (!("event" in read)) {
    // An envelope this release cannot read may have named any session; no envelope names none.
    if (read.envelope) sessions.clear();
    return;
  }
  const { event } = read;
  if (event.type === "players.session.verified") sessions.invalidate(event.data.sessionId);
  else if (event.type === "players.session.ended") for (const id of event.data.sessionIds) sessions.invalidate(id);
}

export function createSessionChangedConsumer(deps: {
  nc: NatsConnection;
  natsPrefix: string;
  sessions: SessionCache;
  logger: Logger;
  registry?: Registry | undefined;
}): Startable {
  return createCoreSubscription({
    ...deps,
    subjects: SESSION_EVENTS,
    consumer: "gateway-session-changed",
    read: readEvent,
    handle: (read) => applySessionEvent(read, deps.sessions),
    missed: () => deps.sessions.clear(),
  });
}
