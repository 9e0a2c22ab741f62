// The series every process may expose, by their fixed names (docs/operations.md, "Metrics"):
// each getter creates its series in a registry the first time and returns the same one after,
// so that the libraries that record into it (rpc, db, bus, the gateway) need no coordination.
import { Counter, type Registry } from "prom-client";
import { SeriesHistogram } from "./histogram.ts";

/** Seconds; one set for every duration histogram, so that dashboards can compare them. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type HttpLabel = "method" | "route" | "status";
export type RpcLabel = "rpc_service" | "rpc_method" | "rpc_code";

function metricOf<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** Gateway: one observation per REST request; route is the router's template or "unmatched". */
export function httpServerDuration(registry: Registry): SeriesHistogram<HttpLabel> {
  return metricOf(registry, "http_server_request_duration_seconds", () => new SeriesHistogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of REST requests, by method, route template and status",
    labelNames: ["method", "route", "status"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  }));
}

/** One observation per RPC handled by this process; rpc_code is the Connect code in snake case ("ok" on success). */
export function rpcServerDuration(registry: Registry): SeriesHistogram<RpcLabel> {
  return metricOf(registry, "rpc_server_duration_seconds", () => new SeriesHistogram({
    name: "rpc_server_duration_seconds",
    help: "Duration of RPCs handled, by service, method and Connect code",
    labelNames: ["rpc_service", "rpc_method", "rpc_code"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  }));
}

/** One observation per RPC this process made to another service. */
export function rpcClientDuration(registry: Registry): SeriesHistogram<RpcLabel> {
  return metricOf(registry, "rpc_client_duration_seconds", () => new SeriesHistogram({
    name: "rpc_client_duration_seconds",
    help: "Duration of RPCs made to other services, by service, method and Connect code",
    labelNames: ["rpc_service", "rpc_method", "rpc_code"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  }));
}

/** Requests refused by an abuse limit; `limit` is a fixed name per limiter, never a bucket key. */
export function rateLimitRefusals(registry: Registry): Counter<"limit"> {
  return metricOf(registry, "support_rate_limit_refusals_total", () => new Counter({
    name: "support_rate_limit_refusals_total",
    help: "Requests refused with 429 by a rate limit",
    labelNames: ["limit"],
    registers: [registry],
  }));
}

/** Calls to a backend refused by the caller's admission control (over its limit: a 503 at once, nothing sent). */
export function rpcClientRefusals(registry: Registry): Counter<"service" | "reason"> {
  return metricOf(registry, "support_rpc_client_refusals_total", () => new Counter({
    name: "support_rpc_client_refusals_total",
    help: "Calls to an internal service refused by the caller's admission control (queue full, or waited too long for a slot)",
    labelNames: ["service", "reason"],
    registers: [registry],
  }));
}

/** Failed syncs of a replica's API-key rate-limit counts with the shared counters (it limits on its own share meanwhile). */
export function rateLimitSyncFailures(registry: Registry): Counter {
  return metricOf(registry, "support_rate_limit_sync_failures_total", () => new Counter({
    name: "support_rate_limit_sync_failures_total",
    help: "Failed syncs of the API-key rate-limit counts with the shared counters",
    registers: [registry],
  }));
}

/** JetStream messages a consumer received again (redelivered=true): retries, AckWait expiries. */
export function jetstreamRedeliveries(registry: Registry): Counter<"consumer"> {
  return metricOf(registry, "support_jetstream_redeliveries_total", () => new Counter({
    name: "support_jetstream_redeliveries_total",
    help: "JetStream messages received with redelivered=true, by durable consumer",
    labelNames: ["consumer"],
    registers: [registry],
  }));
}

/**
 * Messages a consumer could not or would not handle and set aside, by consumer and reason
 * (unparseable, not_envelope, unknown_version, failed, rejected). A JetStream consumer keeps each
 * in the dead-letter stream before terminating it; a plain core subscription (nothing to keep it
 * in, nothing it blocks) only counts and logs it.
 */
export function eventsDeadLettered(registry: Registry): Counter<"consumer" | "reason"> {
  return metricOf(registry, "support_events_dead_lettered_total", () => new Counter({
    name: "support_events_dead_lettered_total",
    help: "Messages set aside by a consumer (kept in the dead-letter stream for JetStream consumers), by consumer and reason",
    labelNames: ["consumer", "reason"],
    registers: [registry],
  }));
}

/** JetStream messages a consumer gave up on (msg.term()): events dropped for good. */
export function jetstreamTerminated(registry: Registry): Counter<"consumer"> {
  return metricOf(registry, "support_jetstream_terminated_total", () => new Counter({
    name: "support_jetstream_terminated_total",
    help: "JetStream messages terminated (given up), by durable consumer",
    labelNames: ["consumer"],
    registers: [registry],
  }));
}
