// The domain event envelope: {id, version, type, occurredAt, companyId, data}. Subjects equal
// the type (plus a deployment prefix that isolates test runs and environments sharing one NATS).
import { randomUUID } from "node:crypto";

/**
 * The envelope version this code writes. A consumer handles only the versions it knows
 * (KNOWN_ENVELOPE_VERSIONS): during a rolling deploy an old consumer may meet a newer producer's
 * events, and it must set them aside (dead letters) rather than misread them.
 */
export const ENVELOPE_VERSION = 1;
export const KNOWN_ENVELOPE_VERSIONS: readonly number[] = [1];

export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  /** Absent in events written before versions existed (still in streams and outboxes): version 1. */
  version?: number;
  type: string;
  occurredAt: string;
  companyId: string;
  data: T;
}

/** Why a message is not an event a consumer can handle. */
export const UNREADABLE_REASONS = ["unparseable", "not_envelope", "unknown_version"] as const;
export type UnreadableReason = (typeof UNREADABLE_REASONS)[number];

export type ReadEnvelope =
  | { envelope: EventEnvelope }
  /** `body`: the parsed message, kept for an envelope of an unknown version (it has the envelope's shape). */
  | { reason: UnreadableReason; detail: string; body?: Record<string, unknown> };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Checks a parsed message body: an envelope of a known version, with its version filled in
 * (absent: 1), or why not. Only the envelope is checked; `data` belongs to each event type.
 */
export function checkEnvelope(value: unknown): ReadEnvelope {
  if (!isObject(value)) return { reason: "not_envelope", detail: "not a JSON object" };
  for (const field of ["id", "type", "occurredAt", "companyId"] as const) {
    if (typeof value[field] !== "string") return { reason: "not_envelope", detail: `${field} is not a string` };
  }
  if (!isObject(value.data)) return { reason: "not_envelope", detail: "data is not an object" };
  const version = value.version ?? 1;
  if (typeof version !== "number" || !KNOWN_ENVELOPE_VERSIONS.includes(version)) {
    return { reason: "unknown_version", detail: `version ${JSON.stringify(version)} is not one of ${KNOWN_ENVELOPE_VERSIONS.join(", ")}`, body: value };
  }
  return { envelope: { ...(value as unknown as EventEnvelope), version } };
}

/**
 * What a message names, for a consumer whose action is harmless to repeat (a cache eviction, a
 * nudge to read again): the envelope, or the body of an envelope of a version this process does
 * not know (what such an event names is still worth acting on); undefined for anything else.
 */
export function namedByEvent(read: ReadEnvelope): Record<string, unknown> | undefined {
  return "envelope" in read ? (read.envelope as unknown as Record<string, unknown>) : read.body;
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

export interface NewEvent<T = Record<string, unknown>> {
  type: string;
  companyId: string;
  data: T;
}

const eventType = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2}$/;

export function createEnvelope<T>(event: NewEvent<T>, now: Date = new Date()): EventEnvelope<T> {
  if (!eventType.test(event.type)) throw new Error(`Event type must look like service.entity.verb: ${event.type}`);
  return { id: randomUUID(), version: ENVELOPE_VERSION, type: event.type, occurredAt: now.toISOString(), companyId: event.companyId, data: event.data };
}

/** The NATS subject of an event type under a deployment prefix ("" in production by default). */
export function subjectFor(prefix: string, type: string): string {
  return `${prefix}${type}`;
}

/** The stream holding one service's events, e.g. CONTENT_EVENTS (or T_AB12_CONTENT_EVENTS in a test run). */
export function streamNameFor(prefix: string, service: string): string {
  return `${prefix}${service}_events`.replace(/[^A-Za-z0-9_-]/g, "_").toUpperCase();
}
