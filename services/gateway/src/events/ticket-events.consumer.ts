// Wakes the live ticket streams of this gateway: tickets publishes an event for every change
// of a ticket (`<prefix>tickets.ticket.*`, data.ticketId); every replica listens (a plain
// core subscription, no queue group) and nudges the streams of that ticket, which re-read it
// from tickets. After a NATS disconnect every stream re-reads, since events may have been missed.
// A message that is not an envelope is counted (support_events_dead_lettered_total, consumer
// gateway-ticket-events) and logged, not kept: a core message has no stream to replay it from.
import { coreEventReader, namedByEvent, type NatsConnection } from "@support/bus";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { TicketStreamHub } from "../player-side/ticket-stream.ts";

/** The ticket an envelope is about; undefined for anything else. */
export function ticketIdOf(envelope: unknown): string | undefined {
  if (envelope === null || typeof envelope !== "object") return undefined;
  const data = (envelope as { data?: unknown }).data;
  if (data === null || typeof data !== "object") return undefined;
  const ticketId = (data as { ticketId?: unknown }).ticketId;
  return typeof ticketId === "string" ? ticketId : undefined;
}

export function createTicketEventsConsumer(deps: { nc: NatsConnection; natsPrefix: string; hub: TicketStreamHub; logger: Logger; registry?: Registry }): Startable {
  let stop: (() => void) | undefined;
  return {
    async start() {
      if (stop) return;
      const readEvent = coreEventReader({ consumer: "gateway-ticket-events", logger: deps.logger, registry: deps.registry });
      const subscription = deps.nc.subscribe(`${deps.natsPrefix}tickets.ticket.>`, {
        callback: (error, msg) => {
          if (error) {
            deps.logger.warn({ err: error }, "ticket event subscription error; streams re-read");
            deps.hub.nudgeAll();
            return;
          }
          const read = readEvent(msg);
          // An envelope of a version this gateway does not know still nudges the ticket it
          // names, if it names one: a nudge only makes the streams read the ticket again.
          const ticketId = ticketIdOf(namedByEvent(read));
          if (ticketId !== undefined) deps.hub.nudge(ticketId);
        },
      });
      const statuses = deps.nc.status() as AsyncIterable<{ type: string }> & { stop?: () => void };
      void (async () => {
        for await (const status of statuses) {
          if (status.type === "reconnect" || status.type === "slowConsumer") deps.hub.nudgeAll();
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
