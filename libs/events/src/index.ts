// The domain event contract: every event type's data, versioned, for producers and consumers.
export { defineEvent, versionsOf, type EarlierVersion, type EventDefinition } from "./contract.ts";
export { breakingChanges, plainSchema } from "./compatibility.ts";
export { newEvent, publishedEventProblems, readAgainst, readEvent, type EnvelopeLike, type NewDomainEvent, type ReadEvent, type UnreadableEvent } from "./events.ts";
export { definitionOf, EVENT_DEFINITIONS, isEventType, type DomainEvent, type EventData, type EventType } from "./registry.ts";
export { PublicTicket } from "./schemas/tickets.ts";
export { contentEventsKeepingReference } from "./schemas/content.ts";
