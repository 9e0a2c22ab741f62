// A closed loop of HTTP requests (each connection sends its next request when the answer came),
// with each answer's latency kept by status: what the flood suite and its probes measure. No
// import of the stack, so that a worker thread can run it apart from the load generator.
import { Pool } from "undici";

/** Nearest-rank percentile (0 < p <= 100) of values sorted ascending; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Rounded to hundredths (of a millisecond, of a request a second). */
export const round = (value: number) => Math.round(value * 100) / 100;

export interface Request {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoopResult {
  name: string;
  connections: number;
  seconds: number;
  statuses: Record<string, number>;
  /** 2xx answers per second. */
  goodput: number;
  accepted: { p50: number; p99: number };
  refused: { count: number; p50: number; p99: number; max: number };
  errors: number;
}

/**
 * `connections` loops, each sending its next request when the answer came, for `seconds`. With
 * `retryAfter`, a loop refused with Retry-After waits that long first, as the typed client does.
 */
export async function closedLoop(name: string, origin: string, connections: number, seconds: number, request: () => Request, retryAfter = false, pacingMs = 0, stopped: () => boolean = () => false): Promise<LoopResult> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const accepted: number[] = [];
  const refused: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until && !stopped()) {
          const { method, path: requestPath, headers, body } = request();
          const sent = performance.now();
          try {
            const answer = await pool.request({ method, path: requestPath, headers, ...(body === undefined ? {} : { body }) });
            await answer.body.dump();
            const ms = performance.now() - sent;
            statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
            (answer.statusCode < 300 ? accepted : refused).push(ms);
            const wait = Number(answer.headers["retry-after"]);
            if (retryAfter && answer.statusCode >= 300 && wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(wait * 1000, until - performance.now()))));
            // A probe asks at a steady pace: it measures what a request meets, without adding load.
            if (pacingMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pacingMs - ms, until - performance.now()))));
          } catch {
            errors += 1;
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  accepted.sort((a, b) => a - b);
  refused.sort((a, b) => a - b);
  return {
    name,
    connections,
    seconds: round(elapsed),
    statuses,
    goodput: round(accepted.length / elapsed),
    accepted: { p50: round(percentile(accepted, 50)), p99: round(percentile(accepted, 99)) },
    refused: { count: refused.length, p50: round(percentile(refused, 50)), p99: round(percentile(refused, 99)), max: round(refused.at(-1) ?? NaN) },
    errors,
  };
}
