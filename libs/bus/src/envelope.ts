// The domain event envelope: {id, type, occurredAt, companyId, data}. Subjects equal the type
// (plus a deployment prefix that isolates test runs and environments sharing one NATS).
import { randomUUID } from "node:crypto";

export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  type: string;
  occurredAt: string;
  companyId: string;
  data: T;
}

export interface NewEvent<T = Record<string, unknown>> {
  type: string;
  companyId: string;
  data: T;
}

const eventType = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2}$/;

export function createEnvelope<T>(event: NewEvent<T>, now: Date = new Date()): EventEnvelope<T> {
  if (!eventType.test(event.type)) throw new Error(`Event type must look like service.entity.verb: ${event.type}`);
  return { id: randomUUID(), type: event.type, occurredAt: now.toISOString(), companyId: event.companyId, data: event.data };
}

/** The NATS subject of an event type under a deployment prefix ("" in production by default). */
export function subjectFor(prefix: string, type: string): string {
  return `${prefix}${type}`;
}

/** The stream holding one service's events, e.g. CONTENT_EVENTS (or T_AB12_CONTENT_EVENTS in a test run). */
export function streamNameFor(prefix: string, service: string): string {
  return `${prefix}${service}_events`.replace(/[^A-Za-z0-9_-]/g, "_").toUpperCase();
}
