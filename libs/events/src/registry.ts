// Every domain event type of the system, and the types producers and consumers use: a payload
// that does not match its definition does not type-check, and is refused at run time too.
import type { Static } from "@sinclair/typebox";
import { contentEvents } from "./schemas/content.ts";
import { mediaEvents } from "./schemas/media.ts";
import { playersEvents } from "./schemas/players.ts";
import { ticketsEvents } from "./schemas/tickets.ts";
import { webhooksEvents } from "./schemas/webhooks.ts";

export const EVENT_DEFINITIONS = [...contentEvents, ...mediaEvents, ...playersEvents, ...ticketsEvents, ...webhooksEvents] as const;

type Definition = (typeof EVENT_DEFINITIONS)[number];
export type EventType = Definition["type"];
/** The `data` of an event type at its current version. */
export type EventData<T extends EventType> = Static<Extract<Definition, { type: T }>["schema"]>;

/** An event as a consumer reads it (whatever version was written, its data in the current shape). */
export type DomainEvent<T extends EventType = EventType> = {
  [K in T]: { id: string; type: K; version: number; occurredAt: string; companyId: string; data: EventData<K> };
}[T];

const byType = new Map<string, Definition>(EVENT_DEFINITIONS.map((definition) => [definition.type, definition]));
if (byType.size !== EVENT_DEFINITIONS.length) throw new Error("an event type is defined twice");

export function definitionOf(type: string): Definition | undefined {
  return byType.get(type);
}

export function isEventType(type: string): type is EventType {
  return byType.has(type);
}
