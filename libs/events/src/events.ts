// Producing and reading domain events through the contract.
import type { EventDefinition } from "./contract.ts";
import { definitionOf, type DomainEvent, type EventData, type EventType } from "./registry.ts";
import { problemWith } from "./validation.ts";

/** An event to write to the outbox: its type, the version of its data, the company, the data. */
export interface NewDomainEvent<T extends EventType = EventType> {
  type: T;
  version: number;
  companyId: string;
  data: EventData<T>;
}

/**
 * An event of the given type at its current version. Data that does not match the definition is
 * a programming error: it throws, and the transaction that was to write it fails, rather than
 * giving consumers an event they cannot read.
 */
export function newEvent<T extends EventType>(type: T, companyId: string, data: EventData<T>): NewDomainEvent<T> {
  const definition = definitionOf(type);
  if (!definition) throw new Error(`unknown event type ${type}`);
  const problem = problemWith(definition.schema, data, "producer");
  if (problem) throw new Error(`${type} v${definition.version} does not match its contract: ${problem}`);
  return { type, version: definition.version, companyId, data };
}

/**
 * What is wrong with a published event as its producer should have written it: the envelope
 * (uuid id and company, a date-time, a known type at its current version) and data holding
 * exactly what the contract names. Empty when nothing is; for tests of producers.
 */
export function publishedEventProblems(envelope: EnvelopeLike): string[] {
  const problems: string[] = [];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  if (!uuid.test(envelope.id)) problems.push("id is not a uuid");
  if (!uuid.test(envelope.companyId)) problems.push("companyId is not a uuid");
  if (Number.isNaN(Date.parse(envelope.occurredAt))) problems.push("occurredAt is not a date-time");
  const definition = definitionOf(envelope.type);
  if (!definition) return [...problems, `${envelope.type} is not in the contract`];
  if (envelope.version !== definition.version) problems.push(`${envelope.type} is at version ${definition.version}, not ${envelope.version}`);
  const problem = problemWith(definition.schema, envelope.data, "producer");
  if (problem) problems.push(`${envelope.type}: ${problem}`);
  return problems;
}

/** Why a read envelope is not an event this code can handle. */
export type UnreadableEvent =
  /** A type this release does not define (a newer producer's new type): nothing here can act on it. */
  | { unknownType: string }
  /** A version this release does not know, or data that does not match its version's schema. */
  | { reason: "unknown_version" | "invalid_data"; detail: string };

export type ReadEvent = { event: DomainEvent } | UnreadableEvent;

/** The envelope fields a reader needs (libs/bus checks the envelope itself). */
export interface EnvelopeLike {
  id: string;
  type: string;
  version?: number;
  occurredAt: string;
  companyId: string;
  data: unknown;
}

/**
 * Reads an envelope against the contract: its data checked against the schema of its version
 * and, for an earlier version, lifted to the current shape.
 */
export function readEvent(envelope: EnvelopeLike): ReadEvent {
  const definition = definitionOf(envelope.type);
  if (!definition) return { unknownType: envelope.type };
  return readAgainst(definition, envelope);
}

/** readEvent with the definition of the envelope's type given. */
export function readAgainst(definition: EventDefinition, envelope: EnvelopeLike): ReadEvent {
  const version = envelope.version ?? 1;
  const earlier = version === definition.version ? undefined : definition.earlier?.[version];
  if (version !== definition.version && !earlier) {
    return { reason: "unknown_version", detail: `${envelope.type} v${version}: this release reads ${[...Object.keys(definition.earlier ?? {}), String(definition.version)].join(", ")}` };
  }
  const problem = problemWith(earlier ? earlier.schema : definition.schema, envelope.data);
  if (problem) return { reason: "invalid_data", detail: `${envelope.type} v${version}: ${problem}` };
  const data = earlier ? earlier.upcast(envelope.data) : envelope.data;
  return { event: { id: envelope.id, type: envelope.type, version, occurredAt: envelope.occurredAt, companyId: envelope.companyId, data } as DomainEvent };
}
