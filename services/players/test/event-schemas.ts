// The event contract (libs/events) as this service's tests use it: every published event is
// checked against it, so the service cannot drift from what consumers read.
import { EVENT_DEFINITIONS, publishedEventProblems } from "@support/events";

/** The event types of this service in the contract. */
export const contractTypes = EVENT_DEFINITIONS.map((definition) => definition.type).filter((type) => type.startsWith("players."));

/** The problems of a published event against the contract; empty when it conforms. */
export const schemaProblems = publishedEventProblems;
