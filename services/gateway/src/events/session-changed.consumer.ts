// Keeps the gateway's session cache honest: players publishes players.session.verified (the
// player proved the session's email) and players.session.ended (the player's erasure ended the
// sessions). Every replica listens (a plain core subscription, no queue group, so each gets
// every event) and marks the named sessions, whose cached copies are then read again or
// refused on their next use. After a NATS disconnect the whole cache goes: events may have
// been missed. A message that is not an envelope is counted (support_events_dead_lettered_total,
// consumer gateway-session-changed) and logged: a core message has no stream to replay it from.
// One of an unknown version still marks the sessions it names: a mark only makes them read again.
import { coreEventReader, namedByEvent, withConsumerSpan, type NatsConnection } from "@support/bus";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { SessionCache } from "../routes/player-side.ts";

export const SESSION_VERIFIED = "players.session.verified";
export const SESSIONS_ENDED = "players.session.ended";

/** The session ids an envelope names (data.sessionId or data.sessionIds); empty for anything else. */
export function sessionIdsOf(envelope: unknown): string[] {
  if (envelope === null || typeof envelope !== "object") return [];
  const data = (envelope as { data?: unknown }).data;
  if (data === null || typeof data !== "object") return [];
  const { sessionId, sessionIds } = data as { sessionId?: unknown; sessionIds?: unknown };
  if (typeof sessionId === "string") return [sessionId];
  if (Array.isArray(sessionIds)) return sessionIds.filter((id): id is string => typeof id === "string");
  return [];
}

export function createSessionChangedConsumer(deps: {
  nc: NatsConnection;
  natsPrefix: string;
  sessions: SessionCache;
  logger: Logger;
  registry?: Registry | undefined;
}): Startable {
  let stop: (() => void) | undefined;
  return {
    async start() {
      if (stop) return;
      const readEvent = coreEventReader({ consumer: "gateway-session-changed", logger: deps.logger, registry: deps.registry });
      const subscriptions = [SESSION_VERIFIED, SESSIONS_ENDED].map((type) =>
        deps.nc.subscribe(`${deps.natsPrefix}${type}`, {
          callback: (error, msg) => {
            if (error) {
              deps.logger.warn({ err: error }, "session event subscription error; clearing the session cache");
              deps.sessions.clear();
              return;
            }
            void withConsumerSpan(msg, "gateway-session-changed", () => {
              for (const id of sessionIdsOf(namedByEvent(readEvent(msg)))) deps.sessions.invalidate(id);
            });
          },
        }),
      );
      const statuses = deps.nc.status() as AsyncIterable<{ type: string }> & { stop?: () => void };
      void (async () => {
        for await (const status of statuses) {
          if (status.type === "disconnect" || status.type === "reconnect" || status.type === "slowConsumer") {
            deps.logger.info({ nats: status.type }, "clearing the session cache: session events may have been missed");
            deps.sessions.clear();
          }
        }
      })().catch((error: unknown) => deps.logger.warn({ err: error }, "nats status watch ended"));
      await deps.nc.flush();
      stop = () => {
        statuses.stop?.();
        for (const subscription of subscriptions) subscription.unsubscribe();
      };
    },
    async stop() {
      stop?.();
      stop = undefined;
    },
  };
}
