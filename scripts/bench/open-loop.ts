// Latency at a fixed arrival rate (open loop): request i is due at start + i / rate, whether or
// not the earlier ones have been answered, as independent clients arrive in production. A
// closed loop (autocannon's connections) sends the next request only after an answer, so a
// slow answer delays the requests behind it and hides their waiting time ("coordinated
// omission"). Here each request's latency counts from its due time to the end of its answer:
// time spent waiting for a free connection or behind the load generator is included.
import { Pool } from "undici";
import { percentile } from "./closed-loop.ts";
import { onBeforeStop } from "./stack.ts";

export { percentile };

export interface OpenLoopRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OpenLoopOptions {
  /** Origin of the server, e.g. http://127.0.0.1:8080. */
  origin: string;
  /** Requests per second. */
  rate: number;
  durationSeconds: number;
  /** The i-th request (0-based). */
  request: (i: number) => OpenLoopRequest;
  /** Most connections open at once; further due requests wait for one (and that wait counts). */
  maxConnections?: number;
  /** After the last due time, how long answers are awaited before they count as timeouts. */
  drainMs?: number;
  /** Seconds at the same rate before the measured ones (connections opened, JIT warm); not counted. */
  warmupSeconds?: number;
}

export interface OpenLoopResult {
  /** The rate asked for, and what was achieved (answers / duration). */
  rate: number;
  achievedRate: number;
  sent: number;
  answered: number;
  /** Latency in ms from due time to the end of the answer. */
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
  /** Transport failures and answers never received in time. */
  errors: number;
  non2xx: number;
  /** p99 of how late the generator sent requests (ms): large values mean the client, not the server, was the limit. */
  sendLagP99: number;
  /** The generator itself fell behind (send lag p99 above CLIENT_LAG_LIMIT_MS): the latencies say little about the server. */
  clientLimited: boolean;
}

/** A generator later than this (p99) was itself the bottleneck. */
export const CLIENT_LAG_LIMIT_MS = 10;

/** Due time (ms since the start) of request `i` at `rate` requests per second. */
export function dueAt(i: number, rate: number): number {
  return (i * 1000) / rate;
}

/** How many requests are due by `elapsedMs` (request 0 is due at 0), at most `total`. */
export function dueBy(elapsedMs: number, rate: number, total: number): number {
  if (elapsedMs < 0) return 0;
  return Math.min(total, Math.floor((elapsedMs * rate) / 1000 + 1e-9) + 1);
}

/** Number of requests of a run: rate x duration, rounded down, at least one. */
export function totalRequests(rate: number, durationSeconds: number): number {
  return Math.max(1, Math.floor(rate * durationSeconds));
}


const round = (ms: number) => Math.round(ms * 100) / 100;

let stopping = false;
onBeforeStop(() => (stopping = true));

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, durationSeconds } = options;
  if (!(rate > 0)) throw new Error(`open loop: the rate must be positive, not ${rate}`);
  // The warm-up requests come first in the same schedule; only the ones after them count.
  const warmup = options.warmupSeconds ? totalRequests(rate, options.warmupSeconds) : 0;
  const total = warmup + totalRequests(rate, durationSeconds);
  const pool = new Pool(options.origin, { connections: options.maxConnections ?? 512, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies = new Float64Array(total - warmup);
  const lags = new Float64Array(total - warmup);
  let answered = 0;
  let errors = 0;
  let non2xx = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const began = performance.now();

  let measuredFrom = 0;
  const fire = (i: number) => {
    const due = began + dueAt(i, rate);
    const counted = i >= warmup;
    if (counted) lags[i - warmup] = performance.now() - due;
    if (i === warmup) measuredFrom = due;
    const request = options.request(i);
    const done = pool
      .request({ method: request.method, path: request.path, headers: request.headers, ...(request.body !== undefined ? { body: request.body } : {}) })
      .then(async (response) => {
        await response.body.dump();
        if (!counted) return;
        latencies[answered++] = performance.now() - due;
        if (response.statusCode < 200 || response.statusCode >= 300) non2xx++;
      })
      .catch(() => {
        if (counted) errors++;
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  // Sends whatever is due, then yields to the event loop (answers are read in between).
  while (sent < total && !stopping) {
    const due = dueBy(performance.now() - began, rate, total);
    while (sent < due) fire(sent++);
    if (sent < total) {
      const wait = began + dueAt(sent, rate) - performance.now();
      await new Promise((resolve) => (wait > 1 ? setTimeout(resolve, Math.min(wait, 50)) : setImmediate(resolve)));
    }
  }
  const drain = Promise.all(inFlight);
  const timedOut = await Promise.race([drain.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), options.drainMs ?? 10_000).unref())]);
  // From the first measured due time to the last answer (or the end of the wait): answers per second delivered.
  const seconds = (performance.now() - measuredFrom) / 1000;
  const missing = timedOut ? inFlight.size : 0;
  const failed = errors;
  await pool.destroy();

  const sorted = latencies.slice(0, answered).sort();
  const sortedLags = lags.slice(0, Math.max(0, sent - warmup)).sort();
  return {
    rate: round(rate),
    achievedRate: Math.round(answered / Math.max(durationSeconds, seconds)),
    sent: Math.max(0, sent - warmup),
    answered,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length ? sorted[sorted.length - 1]! : NaN),
    errors: failed + missing,
    non2xx,
    sendLagP99: round(percentile(sortedLags, 99)),
    clientLimited: percentile(sortedLags, 99) > CLIENT_LAG_LIMIT_MS,
  };
}
