// Admission control per backend: a caller sends a backend at most `maxInFlight` unary calls at
// once; a call over that waits in a short queue for a free slot, and is refused when the queue is
// full or its wait passes `maxWaitMs` — at once, with a 503 and Retry-After, before any work is
// done. Under a flood the backend keeps answering at its best rate with the latency of that rate
// (its own queue and its database pool stay short), and the callers over it are told within
// milliseconds instead of waiting for their deadline. A refusal is an answer of this caller, not
// a fault of the backend: no circuit breaker counts it (the breaker only sees calls admitted).
//
// The limit is static per caller process (RPC_MAX_IN_FLIGHT at the gateway): a few times the
// concurrency at which the backend reaches its best throughput, divided among the callers'
// replicas. Streams (long-lived, few) are not limited.
import { Code, ConnectError, type Transport } from "@connectrpc/connect";

export interface AdmissionOptions {
  /** Unary calls on their way at once; 0: no limit (the transport is returned as it is). */
  maxInFlight: number;
  /** Calls that may wait for a slot; beyond, a call is refused at once. */
  maxQueued: number;
  /** The longest a call waits for a slot before it is refused. */
  maxWaitMs: number;
  /** Told of each refused call (a counter). */
  onRefused?: (reason: "queue_full" | "waited_too_long") => void;
}

export interface AdmissionState {
  inFlight: number;
  queued: number;
}

export interface AdmittingTransport extends Transport {
  admission(): AdmissionState;
}

/** The metadata with which a service marks a deliberate answer (errors.ts): the refusal is one, not a fault. */
const ERROR_CODE_METADATA = "x-error-code";

/** The message of the 503 a refused call becomes. */
export const BUSY_MESSAGE = "The service is busy; nothing was done. Retry shortly";

/** The refusal of a call over the limit: `unavailable` by declaration, so no breaker or retry takes it for a fault. */
export function busyError(): ConnectError {
  const error = new ConnectError(BUSY_MESSAGE, Code.Unavailable);
  error.metadata.set(ERROR_CODE_METADATA, "unavailable");
  return error;
}

interface Waiter {
  admit(): void;
  timer: ReturnType<typeof setTimeout>;
}

/** Wraps `transport` with the limit (see the top of this file). */
export function createAdmissionTransport(transport: Transport, options: AdmissionOptions): AdmittingTransport {
  let inFlight = 0;
  const queue: Waiter[] = [];

  /** A slot, now or after a wait; rejects with busyError() when none comes in time. */
  const acquire = (signal: AbortSignal | undefined): Promise<void> | undefined => {
    if (options.maxInFlight <= 0) return undefined;
    if (inFlight < options.maxInFlight && queue.length === 0) {
      inFlight += 1;
      return undefined;
    }
    if (queue.length >= options.maxQueued || options.maxWaitMs <= 0) {
      options.onRefused?.("queue_full");
      return Promise.reject(busyError());
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (reason: "waited_too_long" | "aborted") => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        signal?.removeEventListener("abort", onAbort);
        if (reason === "waited_too_long") options.onRefused?.(reason);
        reject(reason === "aborted" ? ConnectError.from(signal?.reason ?? new Error("aborted"), Code.Canceled) : busyError());
      };
      const onAbort = () => {
        clearTimeout(waiter.timer);
        leave("aborted");
      };
      const waiter: Waiter = {
        // The slot is handed over by release(): inFlight is already counted for this call.
        admit: () => {
          clearTimeout(waiter.timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        timer: setTimeout(() => leave("waited_too_long"), options.maxWaitMs),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
    });
  };

  const release = () => {
    const next = queue.shift();
    // The slot goes to the first waiter as it is (inFlight unchanged), else it is freed.
    if (next) next.admit();
    else inFlight -= 1;
  };

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const waiting = acquire(signal);
      if (waiting) await waiting;
      try {
        return await transport.unary(method, signal, timeoutMs, header, input, contextValues);
      } finally {
        if (options.maxInFlight > 0) release();
      }
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return transport.stream(method, signal, timeoutMs, header, input, contextValues);
    },
    admission() {
      return { inFlight, queued: queue.length };
    },
  };
}
