// Deliveries: their states, the retry schedule and the outcome of an attempt. Pure.

export type DeliveryStatus = "pending" | "succeeded" | "failed";
export const deliveryStatuses: readonly DeliveryStatus[] = ["pending", "succeeded", "failed"];

export interface Delivery {
  id: string;
  webhookId: string;
  companyId: string;
  seq: string;
  eventId: string | null;
  eventType: string;
  orderingKey: string;
  payload: string;
  /** A rule's call: its own URL (the webhook's otherwise). */
  url: string | null;
  status: DeliveryStatus;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
  lastError: string | null;
}

/** The first bytes of a receiver's answer kept in the log. */
export const MAX_RESPONSE_BODY_BYTES = 2048;

// The schedule's format is shared by every retrying sender (libs/config).
export { parseRetrySchedule } from "@support/config";

/** What an attempt came to. */
export interface AttemptResult {
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  body?: string;
  /** Why no answer came (timeout, refused, DNS, refused target). */
  error?: string;
  /** Seconds the receiver asked to wait (Retry-After), when it did. */
  retryAfterSeconds?: number;
}

export const isSuccess = (result: AttemptResult) => result.status !== undefined && result.status >= 200 && result.status < 300;

/**
 * When to try again after the `attempts`-th failed attempt, or null when the schedule is
 * exhausted. A receiver's Retry-After wins over the schedule, up to `retryAfterMaxSeconds`.
 */
export function nextAttemptAt(attempts: number, result: AttemptResult, schedule: number[], retryAfterMaxSeconds: number, now: Date): Date | null {
  const scheduled = schedule[attempts - 1];
  if (scheduled === undefined) return null;
  const seconds = result.retryAfterSeconds !== undefined ? Math.min(Math.max(result.retryAfterSeconds, 0), retryAfterMaxSeconds) : scheduled;
  return new Date(now.getTime() + seconds * 1000);
}

/** Retry-After: seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** An opaque list cursor: the last seq of the previous page. */
export function encodeCursor(seq: string): string {
  return Buffer.from(`d:${seq}`, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): string | undefined {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^d:(\d{1,18})$/.exec(text);
  return match?.[1];
}
