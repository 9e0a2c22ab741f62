// A closed loop of HTTP requests (each connection sends its next request when the answer came),
// with each answer's latency kept by status: what the flood suite and its probes measure. No
// import of the stack, so that a worker thread can run it apart from the load generator.
import { Pool } from "undici";
import { retryAfterWithJitter } from "../../clients/typescript/src/retry.ts";

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
  /** The measured window on the machine's monotonic clock, in µs (the clock of V8's CPU profiles); of the first round when rounds are combined. */
  windowMonotonicUs: [number, number];
  /** Each answer's latency (ms), sorted: what combineLoops pools across rounds. */
  latencies: { accepted: number[]; refused: number[] };
}

/** The percentiles of a loop's sorted latencies. */
function summary(name: string, connections: number, seconds: number, statuses: Record<string, number>, accepted: number[], refused: number[], errors: number, windowMonotonicUs: [number, number]): LoopResult {
  return {
    name,
    connections,
    seconds: round(seconds),
    statuses,
    goodput: round(accepted.length / seconds),
    accepted: { p50: round(percentile(accepted, 50)), p99: round(percentile(accepted, 99)) },
    refused: { count: refused.length, p50: round(percentile(refused, 50)), p99: round(percentile(refused, 99)), max: round(refused.at(-1) ?? NaN) },
    errors,
    windowMonotonicUs,
    latencies: { accepted, refused },
  };
}

/**
 * Rounds of the same loop as one: their answers pooled (percentiles of all the latencies, 2xx per
 * second over the rounds' whole time), so that a p99 rests on several rounds' answers and a
 * round that met a slow moment of the machine weighs as one of them.
 */
export function combineLoops(rounds: LoopResult[]): LoopResult {
  if (rounds.length === 0) throw new Error("no round to combine");
  const statuses: Record<string, number> = {};
  for (const round of rounds) for (const [status, count] of Object.entries(round.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const pooled = (pick: (r: LoopResult) => number[]) => rounds.flatMap(pick).sort((a, b) => a - b);
  return summary(
    rounds[0]!.name,
    rounds[0]!.connections,
    rounds.reduce((sum, r) => sum + r.seconds, 0),
    statuses,
    pooled((r) => r.latencies.accepted),
    pooled((r) => r.latencies.refused),
    rounds.reduce((sum, r) => sum + r.errors, 0),
    rounds[0]!.windowMonotonicUs,
  );
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * `connections` loops, each sending its next request when the answer came, for `seconds`. With
 * `retryAfter`, a loop refused with Retry-After waits as the typed client does: that long plus a
 * random part of up to one more second.
 */
export async function closedLoop(name: string, origin: string, connections: number, seconds: number, request: () => Request, retryAfter = false, pacingMs = 0, stopped: () => boolean = () => false): Promise<LoopResult> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const accepted: number[] = [];
  const refused: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  const windowStartUs = monotonicUs();
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
            if (retryAfter && answer.statusCode >= 300 && wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(retryAfterWithJitter(wait * 1000), until - performance.now()))));
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
  const windowEndUs = monotonicUs();
  accepted.sort((a, b) => a - b);
  refused.sort((a, b) => a - b);
  return summary(name, connections, elapsed, statuses, accepted, refused, errors, [windowStartUs, windowEndUs]);
}
