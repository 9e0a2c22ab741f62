// What each process of the stack went through during one measurement, read from its own
// /metrics: the longest event-loop delay (prom-client samples it with monitorEventLoopDelay and
// starts a new window at every scrape) and the time spent in garbage collection. The samples are
// the intervals between timer ticks 10 ms apart (prom-client's default precision, which the
// services keep), so the delay is a sample minus those 10 ms: an idle process on an idle machine
// shows about 0.3 ms. A slow answer
// of the open loop is then either a stall inside one process (a long task, a major GC: its
// event loop was late by as much) or a wait for a CPU (every process on time, the machine busy).
import { parseMetricsText, type ParsedMetrics } from "@support/metrics";

export interface ProcessStalls {
  /** Longest event-loop delay during the window (ms): how late a timer fired at worst. */
  lagMaxMs: number;
  /** 99th percentile of the event-loop delays (ms). */
  lagP99Ms: number;
  /** Time in garbage collection during the window (ms), and of it in major (mark-compact) collections. */
  gcMs: number;
  majorGcMs: number;
}

interface Scrape {
  lagMaxMs: number;
  lagP99Ms: number;
  gcMs: number;
  majorGcMs: number;
}

/** A process's /metrics, read; undefined when it does not answer. */
async function metricsOf(port: number): Promise<ParsedMetrics | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    return response.ok ? parseMetricsText(await response.text()) : undefined;
  } catch {
    return undefined;
  }
}

async function scrape(port: number): Promise<Scrape | undefined> {
  const metrics = await metricsOf(port);
  // A process that does not answer is left out of the window.
  if (!metrics) return undefined;
  const seconds = (name: string, labels?: Record<string, string>) => (metrics.value(name, labels) ?? 0) * 1000;
  return {
    lagMaxMs: seconds("nodejs_eventloop_lag_max_seconds"),
    lagP99Ms: seconds("nodejs_eventloop_lag_p99_seconds"),
    gcMs: seconds("nodejs_gc_duration_seconds_sum"),
    majorGcMs: seconds("nodejs_gc_duration_seconds_sum", { kind: "major" }),
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
/** prom-client's default eventLoopMonitoringPrecision: each sample is this interval plus the delay. */
const SAMPLING_INTERVAL_MS = 10;
const delay = (sampleMs: number) => round(Math.max(0, sampleMs - SAMPLING_INTERVAL_MS));

/**
 * Starts a window over the processes' metrics listeners (name -> port); the function returned
 * ends it and gives each process's stalls in it.
 */
export async function stallWindow(ports: Record<string, number>): Promise<() => Promise<Record<string, ProcessStalls>>> {
  const names = Object.keys(ports);
  const before = await Promise.all(names.map((name) => scrape(ports[name]!)));
  return async () => {
    const after = await Promise.all(names.map((name) => scrape(ports[name]!)));
    const stalls: Record<string, ProcessStalls> = {};
    names.forEach((name, i) => {
      const [b, a] = [before[i], after[i]];
      if (!b || !a) return;
      stalls[name] = { lagMaxMs: delay(a.lagMaxMs), lagP99Ms: delay(a.lagP99Ms), gcMs: round(a.gcMs - b.gcMs), majorGcMs: round(a.majorGcMs - b.majorGcMs) };
    });
    return stalls;
  };
}

/** The process with the longest event-loop delay, e.g. "38.2 (gateway)"; "" when none was read. */
export function longestStall(stalls: Record<string, ProcessStalls> | undefined): string {
  const entries = Object.entries(stalls ?? {});
  if (entries.length === 0) return "";
  const [name, worst] = entries.reduce((a, b) => (b[1].lagMaxMs > a[1].lagMaxMs ? b : a));
  return `${worst.lagMaxMs} (${name})`;
}

/** Events not yet handled by the stack: written to an outbox and not published, or published and not yet delivered or acknowledged by a consumer. */
async function backlogOf(port: number): Promise<number> {
  const metrics = await metricsOf(port);
  return ["support_outbox_pending", "support_jetstream_consumer_pending", "support_jetstream_consumer_ack_pending"].reduce((sum, name) => sum + (metrics?.value(name) ?? 0), 0);
}

/**
 * Waits until no process has events left to publish or to handle (at most `timeoutMs`), so that
 * the next measurement does not pay for the one before it: the event consumers (players,
 * webhooks, email) handle a burst of creations behind the requests. Resolves with the time it
 * took and what was left.
 */
export async function drainBacklog(ports: Record<string, number>, timeoutMs = 60_000): Promise<{ ms: number; left: number }> {
  const started = performance.now();
  for (;;) {
    const left = (await Promise.all(Object.values(ports).map(backlogOf))).reduce((a, b) => a + b, 0);
    const ms = Math.round(performance.now() - started);
    if (left === 0 || ms >= timeoutMs) return { ms, left };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
