// Wakes the live ticket streams of this gateway: tickets publishes an event for every change
// of a ticket (`<prefix>tickets.ticket.*`, data.ticketId); every replica listens (a plain
// core subscription, no queue group) and nudges the streams of that ticket, which re-read it
// from tickets. After a NATS disconnect every stream re-reads, since events may have been missed.
// A message this release cannot read is counted (support_events_dead_lettered_total, consumer
// gateway-ticket-events) and logged, not kept (a core message has no stream to replay it from),
// and, if it was an envelope, every stream re-reads: it may have been about any ticket.
import { createCoreSubscription, type CoreRead, type NatsConnection } from "@support/bus";
import { readEvent, type DomainEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Startable } from "@support/runtime";
import type { TicketStreamHub } from "../player-side/ticket-stream.ts";

/**
 * Nudges the streams of the ticket an event is about. A new ticket has no stream yet; an event
 * this release cannot read nudges every stream.
 */
export function applyTicketEvent(read: CoreRead<DomainEvent>, hub: Pick<TicketStreamHub, "nudge" | "nudgeAll">): void {
  if (!("event" in read)) {
    // An envelope this release cannot read may have been about any ticket; no envelope names none.
    if (read.envelope) hub.nudgeAll();
    return;
  }
  const { event } = read;
  if (event.type.startsWith("tickets.ticket.") && "ticketId" in event.data) hub.nudge(event.data.ticketId);
}

export function createTicketEventsConsumer(deps: { nc: NatsConnection; natsPrefix: string; hub: TicketStreamHub; logger: Logger; registry?: Registry }): Startable {
  return createCoreSubscription({
    ...deps,
    subjects: ["tickets.ticket.>"],
    consumer: "gateway-ticket-events",
    read: readEvent,
    handle: (read) => applyTicketEvent(read, deps.hub),
    missed: () => deps.hub.nudgeAll(),
  });
}
