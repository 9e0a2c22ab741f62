// What travels with an idempotent request between the gateway and a service: the client's key,
// a fingerprint of the request it came with, and the mark of a replayed answer.
import { createHash } from "node:crypto";
import { configure } from "safe-stable-stringify";

/** The client's key, as the gateway forwards it (Connect request metadata). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
/** SHA-256 (hex) of the request the key came with, computed by the gateway. */
export const IDEMPOTENCY_FINGERPRINT_HEADER = "idempotency-fingerprint";
/** Set to `true` on an answer that is the recorded answer of the key's first request. */
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
/** Keys are 1..255 characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Why a key is refused, or undefined when it is acceptable. */
export function idempotencyKeyProblem(key: string): string | undefined {
  if (key.length === 0) return "must not be empty";
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) return `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`;
  return undefined;
}

// Object keys sorted: two bodies that differ only in the order of their properties are one request.
const canonicalJson = configure({ deterministic: true, circularValue: Error, bigint: true });

/** The parts of a REST request that make it the same request. */
export interface RequestParts {
  method: string;
  /** The route's template, e.g. `/tickets/{ticketId}/actions` (not the concrete path). */
  route: string;
  params: unknown;
  query: unknown;
  body: unknown;
  /**
   * Who sends it, when keys are shared by several senders (a company's signed-in users): the
   * same key and body from another user is another request. Absent for API-key requests.
   */
  principal?: string | undefined;
}

/** SHA-256 (hex) of the canonical JSON of the request's method, route, parameters, query, body and principal. */
export function requestFingerprint(parts: RequestParts): string {
  const request = [parts.method.toUpperCase(), parts.route, parts.params ?? {}, parts.query ?? {}, parts.body ?? null];
  // Without a principal the fingerprint stays what it always was (keys recorded before still replay).
  const text = canonicalJson(parts.principal === undefined ? request : [...request, parts.principal]) ?? "";
  return createHash("sha256").update(text).digest("hex");
}

/** SHA-256 (hex) of an RPC request (its method's full name and binary form), for callers that send no fingerprint. */
export function messageFingerprint(methodName: string, binary: Uint8Array): string {
  return createHash("sha256").update(methodName).update("\n").update(binary).digest("hex");
}
