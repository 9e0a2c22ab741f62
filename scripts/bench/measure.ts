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
  /** Latency in ms (autocannon reports whole milliseconds for percentiles). */
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  /** Answers in the measured run. */
  requests?: number;
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

function fire(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    running = autocannon(options, (error: unknown, result) => {
      running = undefined;
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result);
    });
  });
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
  // A short warm-up lets JIT and caches settle before the measured run.
  await fire({ ...options, duration: 2 });
  await m.beforeMeasured?.();
  const result = await fire({ ...options, duration: durationSeconds });
  const row: Row = {
    name: m.name,
    connections: m.connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: Math.round(result.latency.average * 100) / 100,
    errors: result.errors, // includes timeouts
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
  console.error(
    `${m.name} c=${m.connections}: ${row.requestsPerSecond} req/s p50 ${row.p50} ms p99 ${row.p99} ms mean ${row.mean} ms errors ${row.errors} non2xx ${row.non2xx}`,
  );
  return row;
}
