// One registry per process (never prom-client's global one), so that tests can run several
// services in one process, each with its own series.
import { collectDefaultMetrics, Registry } from "prom-client";

export type { Registry };

/** A registry with the Node runtime series (process_*, nodejs_eventloop_lag_*, nodejs_heap_*, nodejs_gc_duration_seconds). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
