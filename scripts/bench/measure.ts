// One autocannon measurement (closed loop: each connection sends its next request when the answer
// came): a short warm-up, then BENCH_DURATION_S seconds, as one table row.
import autocannon from "autocannon";
import { onBeforeStop } from "./stack.ts";

/** BENCH_DURATION_S (BENCH_DURATION, its earlier name, still works); default 10. */
export const durationSeconds = Number(process.env.BENCH_DURATION_S ?? process.env.BENCH_DURATION ?? 10);

export interface Row {
  name: string;
  connections: number;
  requestsPerSecond: number;
  /** Latency in ms of the answers in the measured window (2xx or not). */
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  /** Answers in the measured run. */
  requests?: number;
  /**
   * The measured window on the machine's monotonic clock, in µs: the clock of V8's CPU profiles
   * (`profile-summary.ts --case` keeps the samples of this window).
   */
  windowMonotonicUs?: [number, number];
  /** Suite-specific context (e.g. the company's ticket count). */
  [extra: string]: unknown;
}

export interface SuiteResult {
  rows: Row[];
  /** The markdown table(s) printed on stdout. */
  table: string;
  /** More to write into the results JSON (plans, scan rates, targets). */
  details?: Record<string, unknown>;
}

export interface Measurement {
  name: string;
  url: string;
  connections: number;
  headers?: Record<string, string>;
  method?: "GET" | "POST";
  /** Called for every request: a fresh body each time (e.g. unique players). */
  body?: () => string;
  /** Called once for every request: its path, headers and body (e.g. a ticket or session from a pool). */
  next?: () => { path: string; headers?: Record<string, string>; body?: string };
  /** Called after the warm-up, right before the measured run (e.g. a CPU snapshot). */
  beforeMeasured?: () => Promise<void>;
}

let running: autocannon.Instance | undefined;
// Ctrl-C: stop sending before the stack goes down.
onBeforeStop(() => running?.stop());

/** Seconds of load before the measured window (JIT, caches and pools settle). */
const WARMUP_SECONDS = 2;

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Nearest-rank percentile of values sorted ascending. */
function percentileOf(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

export async function measure(m: Measurement): Promise<Row> {
  const options: autocannon.Options = { url: m.url, connections: m.connections, headers: m.headers ?? {}, method: m.method ?? "GET" };
  if (m.body || m.next) {
    const { body, next: nextRequest } = m;
    options.requests = [
      {
        setupRequest: (request) => {
          const next = { ...request };
          if (body) next.body = body();
          if (nextRequest) {
            const t = nextRequest();
            next.path = t.path;
            if (t.headers) next.headers = { ...request.headers, ...t.headers };
            if (t.body !== undefined) next.body = t.body;
          }
          return next;
        },
      },
    ];
  }
  // One continuous run: WARMUP_SECONDS of load, then the measured window of durationSeconds,
  // counted from the answers themselves. No pause in between: the requests in flight when the
  // window opens are answered (and counted) inside it, so the CPU they use belongs to it.
  const latencies: number[] = [];
  let measuring = false;
  let errors = 0;
  let non2xx = 0;
  let windowStart = 0;
  let windowStartUs = 0;
  const run = new Promise<autocannon.Result>((resolve, reject) => {
    running = autocannon({ ...options, duration: WARMUP_SECONDS + durationSeconds }, (error: unknown, result) => {
      running = undefined;
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result);
    });
    running.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (!measuring) return;
      latencies.push(responseTime);
      if (statusCode < 200 || statusCode >= 300) non2xx++;
    });
    running.on("reqError", () => {
      if (measuring) errors++;
    });
  });
  const opened = new Promise<void>((resolve) => {
    setTimeout(() => {
      void (async () => {
        await m.beforeMeasured?.();
        measuring = true;
        windowStart = performance.now();
        windowStartUs = monotonicUs();
        resolve();
      })();
    }, WARMUP_SECONDS * 1000);
  });
  await run;
  measuring = false;
  const windowEndUs = monotonicUs();
  const seconds = (performance.now() - windowStart) / 1000;
  await opened;
  const sorted = Float64Array.from(latencies).sort();
  const ms = (x: number) => Math.round(x * 100) / 100;
  const row: Row = {
    name: m.name,
    connections: m.connections,
    requestsPerSecond: Math.round(latencies.length / Math.max(seconds, 0.001)),
    p50: ms(percentileOf(sorted, 50)),
    p99: ms(percentileOf(sorted, 99)),
    mean: ms(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
    errors, // includes timeouts
    non2xx,
    requests: latencies.length,
    windowMonotonicUs: [windowStartUs, windowEndUs],
  };
  console.error(
    `${m.name} c=${m.connections}: ${row.requestsPerSecond} req/s p50 ${row.p50} ms p99 ${row.p99} ms mean ${row.mean} ms errors ${row.errors} non2xx ${row.non2xx}`,
  );
  return row;
}
