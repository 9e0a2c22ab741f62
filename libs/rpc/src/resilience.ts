// A circuit breaker and a bounded retry per backend, around a Connect transport: a backend
// that keeps failing is not called for a while (its calls fail at once with `unavailable`
// instead of each waiting for a refused connection or a timeout), and a call the backend
// cannot have handled is tried once more, on another address, within a retry budget.
import { MethodOptions_IdempotencyLevel as Idempotency } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen } from "cockatiel";

export interface ResilienceOptions {
  /** Consecutive failed calls (connection refused or lost, backend gone) that open the breaker; a passed deadline is not one. */
  breakAfterFailures?: number;
  /** How long an open breaker fails calls at once before one trial call is let through. */
  halfOpenAfterMs?: number;
  /** Retries allowed per call made (0.1: one retry per ten calls), on top of `retryBurst`. */
  retryRatio?: number;
  /** Retries available after a quiet period (the budget's ceiling). */
  retryBurst?: number;
}

export type BreakerState = "closed" | "open" | "half-open";

export interface ResilientTransport extends Transport {
  breakerState(): BreakerState;
}

const ERROR_CODE_METADATA = "x-error-code";
// Errors of a connection that was never made: the request did not reach the backend.
const notSentCodes = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** A fault of the transport or of the other process, not an answer the service chose to give. */
function isTransportFault(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  if (error.metadata.get(ERROR_CODE_METADATA) !== null) return false;
  return error.code === Code.Unavailable || error.code === Code.DeadlineExceeded;
}

/**
 * What the breaker counts: the backend refused the connection, lost it or is not there. Never a
 * passed deadline: under load that is the callers' own queueing (a healthy, busy backend), and an
 * open breaker would then refuse every route of the backend, reads included. A backend that hangs
 * is bounded by the deadlines and by admission control (admission.ts), not by the breaker.
 */
function isBackendFault(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  if (error.metadata.get(ERROR_CODE_METADATA) !== null) return false;
  return error.code === Code.Unavailable || error.code === Code.Unknown || error.code === Code.Aborted;
}

function wasNotSent(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && notSentCodes.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Wraps `transport` with one circuit breaker (cockatiel's, on consecutive failures) and a retry
 * budget. While the breaker is open a call fails at once with Connect's Unavailable, which the
 * clients turn into the `unavailable` error (503 with Retry-After at the gateway).
 *
 * A failed unary call is retried once when it cannot have had an effect: its connection was
 * refused (nothing was sent), or the method is declared free of side effects or idempotent in
 * its proto (`idempotency_level`) and its connection failed (never after a passed deadline). Retries are paid from a budget
 * that grows by `retryRatio` per call up to `retryBurst`, so that a failing backend sees at
 * most that fraction of extra calls instead of a multiple of its load. Streams are not retried.
 */
export function createResilientTransport(transport: Transport, options: ResilienceOptions = {}): ResilientTransport {
  const breaker = circuitBreaker(
    handleWhen(isBackendFault),
    { halfOpenAfter: options.halfOpenAfterMs ?? 5_000, breaker: new ConsecutiveBreaker(options.breakAfterFailures ?? 5) },
  );
  const ratio = options.retryRatio ?? 0.1;
  const burst = options.retryBurst ?? 10;
  let budget = burst;

  const guarded = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await breaker.execute(call);
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw new ConnectError("The circuit breaker of this backend is open", Code.Unavailable, undefined, undefined, error);
      throw error;
    }
  };

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      budget = Math.min(burst, budget + ratio);
      const attempt = () => guarded(() => transport.unary(method, signal, timeoutMs, header, input, contextValues));
      try {
        return await attempt();
      } catch (error) {
        const safe = method.idempotency === Idempotency.NO_SIDE_EFFECTS || method.idempotency === Idempotency.IDEMPOTENT;
        // Not after a deadline: the retry would run past the time the caller gave the call.
        const unavailable = isTransportFault(error) && (error as ConnectError).code === Code.Unavailable;
        const retryable = unavailable && (wasNotSent(error) || safe) && !(signal?.aborted ?? false);
        if (!retryable || breaker.state === CircuitState.Open || budget < 1) throw error;
        budget -= 1;
        return attempt();
      }
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      return guarded(() => transport.stream(method, signal, timeoutMs, header, input, contextValues));
    },
    breakerState() {
      switch (breaker.state) {
        case CircuitState.Closed:
          return "closed";
        case CircuitState.HalfOpen:
          return "half-open";
        default:
          return "open";
      }
    },
  };
}
