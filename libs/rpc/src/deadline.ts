// The deadline of the call a service is handling, so that the calls it makes to other services
// end when its caller stops waiting: each outgoing call gets the smaller of its own timeout and
// the time the incoming call has left, and is cancelled when the incoming call is.
import { currentRequestContext, withRequestContext, type RequestContext } from "@support/logging";

export interface CallScope {
  /** Epoch milliseconds after which the caller no longer waits; undefined: no deadline. */
  deadline: number | undefined;
  /** Aborted when the incoming call ends early (deadline passed, caller hung up, shutdown). */
  signal: AbortSignal | undefined;
}

/**
 * The request context of a call with `scope` added to what is current: the smaller deadline,
 * and a signal that aborts when either does; a read stays a read. The request id, kept in the same context (see
 * @support/logging), is `requestId` when given, else the current one.
 */
export function scopedContext(scope: CallScope, requestId?: string): RequestContext {
  const outer = currentRequestContext();
  const deadline =
    outer?.deadline === undefined ? scope.deadline : scope.deadline === undefined ? outer.deadline : Math.min(outer.deadline, scope.deadline);
  const outerSignal = outer?.signal;
  const signal = outerSignal === undefined ? scope.signal : scope.signal === undefined ? outerSignal : AbortSignal.any([outerSignal, scope.signal]);
  return { requestId: requestId ?? outer?.requestId, deadline, signal, readOnly: outer?.readOnly };
}

/** Runs `fn` with a deadline (and cancellation) that outgoing calls made inside it respect. */
export function withCallScope<T>(scope: CallScope, fn: () => T): T {
  return withRequestContext(scopedContext(scope), fn);
}

/** Runs `fn` so that every outgoing call inside it ends at most `timeoutMs` from now. */
export function withDeadline<T>(timeoutMs: number, fn: () => T): T {
  return withCallScope({ deadline: Date.now() + timeoutMs, signal: undefined }, fn);
}

/**
 * Runs `fn` outside the current call's deadline and cancellation: for work whose result is
 * shared with other callers (a cache fill), which one caller giving up must not cancel. Its
 * calls keep their own timeouts, and its log lines the current request id.
 */
export function outsideCallScope<T>(fn: () => T): T {
  return withRequestContext({ requestId: currentRequestContext()?.requestId }, fn);
}

export function currentCallScope(): CallScope | undefined {
  const context = currentRequestContext();
  if (context?.deadline === undefined && context?.signal === undefined) return undefined;
  return { deadline: context.deadline, signal: context.signal };
}

/**
 * The timeout an incoming request announced: Connect's `connect-timeout-ms` (milliseconds) or
 * gRPC's `grpc-timeout` (an integer and a unit, e.g. "250m").
 */
export function incomingTimeoutMs(header: Headers): number | undefined {
  const connect = header.get("connect-timeout-ms");
  if (connect !== null && /^\d{1,10}$/.test(connect)) return Number(connect);
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(header.get("grpc-timeout") ?? "");
  if (!grpc) return undefined;
  const unitMs = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000_001 }[grpc[2] as "H" | "M" | "S" | "m" | "u" | "n"];
  return Number(grpc[1]) * unitMs;
}
