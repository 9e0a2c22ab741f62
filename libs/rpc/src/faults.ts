// Which failures are faults of the infrastructure rather than answers of a service: a database
// that cannot be reached, and a call to another service that was refused or lost on the way.
// Each kind becomes one fixed public message; the library's own text never reaches a client.

/** The request was not handled: nothing was applied, the same request can simply be sent again. */
export const UNAVAILABLE_MESSAGE = "A dependency is unavailable, try again later";

/**
 * The connection was lost after the request was sent: a write may or may not have been
 * applied, so the client is told to check before repeating anything that is not idempotent.
 */
export const OUTCOME_UNKNOWN_MESSAGE =
  "The service became unavailable while handling the request; it may or may not have been applied. Retry with the same request, or check its result first.";

export const DEADLINE_MESSAGE = "A dependency did not answer in time; the request may or may not have been applied";

/** Seconds a client should wait before retrying a 503 (the Retry-After header). */
export const RETRY_AFTER_SECONDS = 2;

// Socket errors meaning "the other end is not there (any more)".
const networkErrorCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

// SQLSTATEs of a database that is shutting down, restarting or full: 57P01 admin_shutdown,
// 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections. Class 08 (every
// connection exception) is matched by its prefix.
const unavailableSqlStates = new Set(["57P01", "57P02", "57P03", "53300"]);

// Messages of node-postgres and its pool that carry no code: a connection closed under a
// query, a connection that did not open within connectionTimeoutMillis (the client's "timeout
// expired", the pool's "timeout exceeded when trying to connect").
const unavailableMessages = [/connection terminated/i, /timeout exceeded when trying to connect/i, /^timeout expired$/i, /connection timeout/i, /client has encountered a connection error/i];

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    if (current instanceof AggregateError) chain.push(...current.errors);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function isUnavailableFault(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    if (networkErrorCodes.has(code) || unavailableSqlStates.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return typeof message === "string" && unavailableMessages.some((pattern) => pattern.test(message));
}

/**
 * Whether an error of a driver (the database's, its pool's, a socket's) means a dependency is
 * unavailable: refused, reset or timed-out connections, a database shutting down or refusing
 * connections, too many connections, a pool that could not hand out a connection in time.
 * Such a failure is answered as `unavailable` (retry later), not as an internal error.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  return causes(error).some(isUnavailableFault);
}
