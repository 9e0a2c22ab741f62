// Keeps the gateway's cache of support application sessions honest across replicas: content
// publishes content.agent_sessions.ended whenever sessions end (sign-out on any replica, sign
// out everywhere, a password change, a deactivation). Every replica listens (a plain core
// subscription, no queue group) and marks the named session ids, whose cached copies are then
// read again (and refused) on their next use. After a NATS disconnect the whole cache goes:
// events may have been missed. A message this release cannot read clears the whole cache too
// (a miss costs one GetAgentSession); it is counted and logged by the reader.
import { coreEventReader, withConsumerSpan, type CoreRead, type NatsConnection } from "@support/bus";
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
  let stop: (() => void) | undefined;
  return {
    async start() {
      if (stop) return;
      const read = coreEventReader({ consumer: "gateway-agent-sessions-ended", logger: deps.logger, registry: deps.registry, read: readEvent });
      const subscription = deps.nc.subscribe(`${deps.natsPrefix}${AGENT_SESSIONS_ENDED}`, {
        callback: (error, msg) => {
          if (error) {
            deps.logger.warn({ err: error }, "agent session event subscription error; clearing the agent session cache");
            deps.sessions.clear();
            return;
          }
          void withConsumerSpan(msg, "gateway-agent-sessions-ended", () => applyAgentSessionsEnded(read(msg), deps.sessions));
        },
      });
      const statuses = deps.nc.status() as AsyncIterable<{ type: string }> & { stop?: () => void };
      void (async () => {
        for await (const status of statuses) {
          if (status.type === "disconnect" || status.type === "reconnect" || status.type === "slowConsumer") {
            deps.logger.info({ nats: status.type }, "clearing the agent session cache: session events may have been missed");
            deps.sessions.clear();
          }
        }
      })().catch((error: unknown) => deps.logger.warn({ err: error }, "nats status watch ended"));
      await deps.nc.flush();
      stop = () => {
        statuses.stop?.();
        subscription.unsubscribe();
      };
    },
    async stop() {
      stop?.();
      stop = undefined;
    },
  };
}
