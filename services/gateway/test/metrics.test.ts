// Every process of the real stack serves its metrics: after a ticket is created through REST,
// each one's GET /metrics has the series operators and alerts rely on, with sensible values
// (the calls made are counted under their route templates and RPC names, the outbox is back to
// empty once the relay has published, the pools and the Node runtime are reported), and no
// label carries an id.
import { randomUUID } from "node:crypto";
import { streamNameFor } from "@support/bus";
import { parseMetricsText, type ParsedMetrics } from "@support/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startStack, type Stack } from "./stack.ts";
import { tenantA } from "./tenants.ts";

const PROCESSES = ["gateway", "content", "tickets", "media", "players", "webhooks", "email"] as const;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

async function scrape(url: string): Promise<{ text: string; metrics: ParsedMetrics; contentType: string | null }> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  const text = await response.text();
  return { text, metrics: parseMetricsText(text), contentType: response.headers.get("content-type") };
}

describe("metrics of every process", () => {
  let stack: Stack;
  let key: string;
  let gameId: string;
  let ticketId: string;

  beforeAll(async () => {
    stack = await startStack();
    const tenant = await stack.applyTenant(tenantA);
    key = tenant.apiKeys.main!;
    gameId = tenant.games.galaxy!.id;
    // Every service answers the gateway's health checks (the aggregate health endpoint asks each
    // one); then a ticket, a miss and an unknown path.
    expect((await stack.request("/readyz")).status).toBe(200);
    expect((await stack.request("/healthz/dependencies")).status).toBe(200);
    const created = await stack.request("/tickets", {
      method: "POST",
      key,
      json: {
        gameId,
        message: "The ship explodes on launch",
        language: "en",
        channels: ["email"],
        metadata: { player: { id: "metrics-player", email: "metrics@example.com" } },
      },
    });
    expect(created.status, created.text).toBe(200);
    ticketId = (created.body as { ticketId: string }).ticketId;
    expect((await stack.request(`/tickets/${randomUUID()}/events`, { key })).status).toBe(404);
    expect((await stack.request(`/no-such-path/${randomUUID()}`, { key })).status).toBe(404);
  });
  afterAll(() => stack?.stop());

  it("serves only GET /metrics on the metrics port, in the Prometheus text format", async () => {
    const urls = stack.metricsUrls();
    expect(Object.keys(urls).sort()).toEqual([...PROCESSES].sort());
    const { contentType } = await scrape(urls.gateway);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await fetch(urls.gateway.replace(/\/metrics$/, "/other"))).status).toBe(404);
    // Never on the public port.
    expect((await fetch(`${stack.url}/metrics`)).status).toBe(404);
  });

  it("counts the REST requests under their route templates, and the gateway's calls", async () => {
    const { metrics } = await scrape(stack.metricsUrls().gateway);
    const count = (labels: Record<string, string>) => metrics.value("http_server_request_duration_seconds_count", labels) ?? 0;
    expect(count({ method: "POST", route: "/tickets", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(count({ method: "GET", route: "/tickets/:ticketId/events", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(count({ method: "GET", route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(count({ method: "GET", route: "/readyz", status: "200" })).toBeGreaterThanOrEqual(1);
    // A histogram's +Inf bucket counts every observation, and the sum is a duration.
    const inf = metrics.value("http_server_request_duration_seconds_bucket", { method: "POST", route: "/tickets", status: "200", le: "+Inf" });
    expect(inf).toBe(count({ method: "POST", route: "/tickets", status: "200" }));
    const sum = metrics.value("http_server_request_duration_seconds_sum", { method: "POST", route: "/tickets", status: "200" })!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(60);
    const buckets = metrics.find("http_server_request_duration_seconds_bucket", { method: "POST", route: "/tickets", status: "200" }).map((s) => s.labels.le);
    expect(buckets).toEqual(["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]);

    const calls = (labels: Record<string, string>) => metrics.value("rpc_client_duration_seconds_count", labels) ?? 0;
    expect(calls({ rpc_service: "tickets.v1.TicketsService", rpc_method: "CreateTicket", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    expect(calls({ rpc_service: "tickets.v1.TicketsService", rpc_method: "ListTicketEvents", rpc_code: "not_found" })).toBeGreaterThanOrEqual(1);
    expect(calls({ rpc_service: "content.v1.ContentService", rpc_method: "AuthenticateApiKey", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    expect(calls({ rpc_service: "grpc.health.v1.Health", rpc_method: "Check", rpc_code: "ok" })).toBeGreaterThanOrEqual(4);
    expect(count({ method: "GET", route: "/healthz/dependencies", status: "200" })).toBeGreaterThanOrEqual(1);
  });

  it("counts the RPCs each service handled and made", async () => {
    const urls = stack.metricsUrls();
    const tickets = (await scrape(urls.tickets)).metrics;
    expect(tickets.value("rpc_server_duration_seconds_count", { rpc_service: "tickets.v1.TicketsService", rpc_method: "CreateTicket", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    expect(tickets.value("rpc_server_duration_seconds_count", { rpc_service: "tickets.v1.TicketsService", rpc_method: "ListTicketEvents", rpc_code: "not_found" })).toBeGreaterThanOrEqual(1);
    expect(tickets.value("rpc_client_duration_seconds_count", { rpc_service: "players.v1.PlayersService", rpc_method: "ResolvePlayer", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    expect(tickets.value("rpc_client_duration_seconds_count", { rpc_service: "content.v1.ContentService", rpc_method: "GetGame", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    const content = (await scrape(urls.content)).metrics;
    expect(content.value("rpc_server_duration_seconds_count", { rpc_service: "content.v1.ContentService", rpc_method: "GetGame", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    const players = (await scrape(urls.players)).metrics;
    expect(players.value("rpc_server_duration_seconds_count", { rpc_service: "players.v1.PlayersService", rpc_method: "ResolvePlayer", rpc_code: "ok" })).toBeGreaterThanOrEqual(1);
    for (const name of PROCESSES.filter((process) => process !== "gateway")) {
      const { metrics } = await scrape(urls[name]);
      expect(metrics.value("rpc_server_duration_seconds_count", { rpc_service: "grpc.health.v1.Health", rpc_method: "Check", rpc_code: "ok" }), name).toBeGreaterThanOrEqual(1);
    }
  });

  it("reports the outbox back at 0 once the relay has published, and the pools of every service", async () => {
    const urls = stack.metricsUrls();
    let tickets: ParsedMetrics | undefined;
    await eventually(async () => {
      tickets = (await scrape(urls.tickets)).metrics;
      return tickets.value("support_outbox_pending") === 0;
    });
    expect(tickets!.value("support_outbox_oldest_age_seconds")).toBe(0);
    for (const name of PROCESSES.filter((process) => process !== "gateway")) {
      const { metrics } = await scrape(urls[name]);
      expect(metrics.types.get("support_outbox_pending"), name).toBe("gauge");
      const inUse = metrics.value("db_pool_connections", { state: "in_use" });
      const idle = metrics.value("db_pool_connections", { state: "idle" });
      expect(inUse, name).toBeGreaterThanOrEqual(0);
      // The service has queried its database (readiness, the outbox count): a connection is open.
      expect(inUse! + idle!, name).toBeGreaterThanOrEqual(1);
      expect(metrics.value("db_pool_waiting"), name).toBeGreaterThanOrEqual(0);
    }
  });

  it("reports the players' deletion backlog and the JetStream consumer", async () => {
    const { metrics } = await scrape(stack.metricsUrls().players);
    expect(metrics.value("support_deletions_pending")).toBe(0);
    expect(metrics.value("support_deletions_overdue")).toBe(0);
    const consumer = { consumer: "players-deletion" };
    expect(metrics.find("support_jetstream_consumer_pending", consumer)).toHaveLength(1);
    expect(metrics.find("support_jetstream_consumer_pending", consumer)[0]!.labels.stream).toBe(streamNameFor(stack.infra.natsPrefix, "players"));
    expect(metrics.value("support_jetstream_consumer_pending", consumer)).toBeGreaterThanOrEqual(0);
    expect(metrics.value("support_jetstream_consumer_ack_pending", consumer)).toBeGreaterThanOrEqual(0);
    expect(metrics.types.get("support_jetstream_redeliveries_total")).toBe("counter");
    expect(metrics.types.get("support_jetstream_terminated_total")).toBe("counter");
    // Every reason of the dead letters from 0, so that the alert's increase() sees the first one.
    for (const reason of ["unparseable", "not_envelope", "unknown_version", "failed", "rejected"]) {
      expect(metrics.value("support_events_dead_lettered_total", { consumer: "players-deletion", reason }), reason).toBe(0);
    }
  });

  it("counts the gateway's and tickets' skipped event messages from 0 (their plain subscriptions)", async () => {
    const urls = stack.metricsUrls();
    const gateway = (await scrape(urls.gateway)).metrics;
    const tickets = (await scrape(urls.tickets)).metrics;
    for (const reason of ["unparseable", "not_envelope", "unknown_version"]) {
      expect(gateway.value("support_events_dead_lettered_total", { consumer: "gateway-content-changed", reason }), reason).toBe(0);
      expect(gateway.value("support_events_dead_lettered_total", { consumer: "gateway-ticket-events", reason }), reason).toBe(0);
      expect(gateway.value("support_events_dead_lettered_total", { consumer: "gateway-session-changed", reason }), reason).toBe(0);
      expect(tickets.value("support_events_dead_lettered_total", { consumer: "tickets-content-changed", reason }), reason).toBe(0);
    }
  });

  it("reports the Node runtime of every process, and no label carries an id", async () => {
    for (const name of PROCESSES) {
      const { metrics } = await scrape(stack.metricsUrls()[name]);
      for (const family of ["process_cpu_user_seconds_total", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds", "nodejs_gc_duration_seconds"]) {
        expect(metrics.types.has(family), `${name}: ${family}`).toBe(true);
      }
      expect(metrics.value("process_resident_memory_bytes"), name).toBeGreaterThan(0);
      for (const sample of metrics.samples) {
        for (const value of Object.values(sample.labels)) {
          expect(value, `${name}: ${sample.name}`).not.toMatch(UUID);
          expect(value).not.toContain(ticketId);
        }
      }
    }
  });
});
