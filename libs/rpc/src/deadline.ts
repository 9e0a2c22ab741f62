// The deadline of the call a service is handling, so that the calls it makes to other services
// end when its caller stops waiting: each outgoing call gets the smaller of its own timeout and
// the time the incoming call has left, and is cancelled when the incoming call is.
import { AsyncLocalStorage } from "node:async_hooks";

export interface CallScope {
  /** Epoch milliseconds after which the caller no longer waits; undefined: no deadline. */
  deadline: number | undefined;
  /** Aborted when the incoming call ends early (deadline passed, caller hung up, shutdown). */
  signal: AbortSignal | undefined;
}

const storage = new AsyncLocalStorage<CallScope>();

/** Runs `fn` with a deadline (and cancellation) that outgoing calls made inside it respect. */
export function withCallScope<T>(scope: CallScope, fn: () => T): T {
  const outer = storage.getStore();
  const deadline =
    outer?.deadline === undefined ? scope.deadline : scope.deadline === undefined ? outer.deadline : Math.min(outer.deadline, scope.deadline);
  const signals = [outer?.signal, scope.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  return storage.run({ deadline, signal }, fn);
}

/** Runs `fn` so that every outgoing call inside it ends at most `timeoutMs` from now. */
export function withDeadline<T>(timeoutMs: number, fn: () => T): T {
  return withCallScope({ deadline: Date.now() + timeoutMs, signal: undefined }, fn);
}

/**
 * Runs `fn` outside the current call's deadline and cancellation: for work whose result is
 * shared with other callers (a cache fill), which one caller giving up must not cancel. Its
 * calls keep their own timeouts.
 */
export function outsideCallScope<T>(fn: () => T): T {
  return storage.exit(fn);
}

export function currentCallScope(): CallScope | undefined {
  return storage.getStore();
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
