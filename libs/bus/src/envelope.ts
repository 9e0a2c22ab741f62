// The domain event envelope: {id, version, type, occurredAt, companyId, data}. Subjects equal
// the type (plus a deployment prefix that isolates test runs and environments sharing one NATS).
import { randomUUID } from "node:crypto";

export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  /**
   * The version of `data` for this type (the event contract's). Absent in events written before
   * versions existed (still in streams and outboxes): version 1.
   */
  version?: number;
  type: string;
  occurredAt: string;
  companyId: string;
  data: T;
}

/** Why a message is not an event a consumer can handle. */
export const UNREADABLE_REASONS = ["unparseable", "not_envelope", "unknown_version"] as const;
export type UnreadableReason = (typeof UNREADABLE_REASONS)[number];

export type ReadEnvelope = { envelope: EventEnvelope } | { reason: UnreadableReason; detail: string };

/**
 * An envelope read against the event contract (a consumer's `read`): the typed event, a type
 * this release does not define (nothing here acts on it), or why it cannot be handled.
 */
export type ContractRead<E> = { event: E } | { unknownType: string } | { reason: "unknown_version" | "invalid_data"; detail: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Checks a parsed message body: an envelope, with its version filled in (absent: 1), or why not.
 * Only the envelope is checked; which versions of a type a consumer reads, and what `data`
 * holds, is the event contract's (a consumer's `read`).
 */
export function checkEnvelope(value: unknown): ReadEnvelope {
  if (!isObject(value)) return { reason: "not_envelope", detail: "not a JSON object" };
  for (const field of ["id", "type", "occurredAt", "companyId"] as const) {
    if (typeof value[field] !== "string") return { reason: "not_envelope", detail: `${field} is not a string` };
  }
  if (!isObject(value.data)) return { reason: "not_envelope", detail: "data is not an object" };
  const version = value.version ?? 1;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    return { reason: "unknown_version", detail: `version ${JSON.stringify(version)} is not a positive integer` };
  }
  return { envelope: { ...(value as unknown as EventEnvelope), version } };
}

/** Parses and checks a message body (its bytes as sent). */
export function readEnvelope(body: Uint8Array | string): ReadEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body));
  } catch (error) {
    return { reason: "unparseable", detail: (error as Error).message };
  }
  return checkEnvelope(value);
}

/** An event to write: its type, the version of its data (the contract's `newEvent` sets both), the company, the data. */
export interface NewEvent<T = unknown> {
  type: string;
  version: number;
  companyId: string;
  data: T;
}

const eventType = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2}$/;

export function createEnvelope<T>(event: NewEvent<T>, now: Date = new Date()): EventEnvelope<T> {
  if (!eventType.test(event.type)) throw new Error(`Event type must look like service.entity.verb: ${event.type}`);
  if (!Number.isInteger(event.version) || event.version < 1) throw new Error(`Event version must be a positive integer: ${event.version}`);
  return { id: randomUUID(), version: event.version, type: event.type, occurredAt: now.toISOString(), companyId: event.companyId, data: event.data };
}

/** The NATS subject of an event type under a deployment prefix ("" in production by default). */
export function subjectFor(prefix: string, type: string): string {
  return `${prefix}${type}`;
}

/** The stream holding one service's events, e.g. CONTENT_EVENTS (or T_AB12_CONTENT_EVENTS in a test run). */
export function streamNameFor(prefix: string, service: string): string {
  return `${prefix}${service}_events`.replace(/[^A-Za-z0-9_-]/g, "_").toUpperCase();
}
