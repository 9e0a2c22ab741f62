// Keeps the gateway's cache of support application sessions honest across replicas: content
// publishes content.agent_sessions.ended whenever sessions end (sign-out on any replica, sign
// out everywhere, a password change, a deactivation). Every replica listens (a plain core
// subscription, no queue group) and marks the named session ids, whose cached copies are then
// read again (and refused) on their next use. After a NATS disconnect the whole cache goes:
// events may have been missed. A message this release cannot read clears the whole cache too
// (a miss costs one GetAgentSession); it is counted and logged by the reader.
import { createCoreSubscription, type CoreRead, type NatsConnection } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { AgentSessionCache } from "../agent-api/sessions.ts";

export const AGENT_SESSIONS_ENDED = "content.agent_sessions.ended";

/** Marks the sessions an event names; an envelope this release cannot read clears the cache. */
export function applyAgentSessionsEnded(read: CoreRead<DomainEvent>, sessions: Pick<AgentSessionCache, "invalidate" | "clear">): void {
  if ("event" in read) {
    if (read.event.type !== AGENT_SESSIONS_ENDED) return;
    for (const id of read.event.data.sessionIds) sessions.invalidate(id);
    return;
  }
  // Unreadable (a newer version, data off the contract) or of a type this release does not
  // define: it may have named any session. No envelope at all names none.
  if (read.envelope) sessions.clear();
}

export function createAgentSessionsEndedConsumer(deps: {
  nc: NatsConnection;
  natsPrefix: string;
  sessions: AgentSessionCache;
  logger: Logger;
  registry?: Registry | undefined;
}): Startable {
  return createCoreSubscription({
    ...deps,
    subjects: [AGENT_SESSIONS_ENDED],
    consumer: "gateway-agent-sessions-ended",
    read: readEvent,
    handle: (read) => applyAgentSessionsEnded(read, deps.sessions),
    missed: () => deps.sessions.clear(),
  });
}
