import { Writable } from "node:stream";
import { createLogger } from "@support/logging";
import { describe, expect, it } from "vitest";
import {
  addScrapeSource, createMetricsRegistry, DURATION_BUCKETS, httpServerDuration, parseMetricsText, rateLimitRefusals, rpcServerDuration, sharedForScrape,
  startMetricsServer,
} from "./index.ts";

const logger = createLogger({ service: "metrics-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

async function scrapeOf(registry: ReturnType<typeof createMetricsRegistry>) {
  return parseMetricsText(await registry.metrics());
}

describe("registry and series", () => {
  it("keeps each process's series apart and has the Node runtime series", async () => {
    const a = createMetricsRegistry();
    const b = createMetricsRegistry();
    rateLimitRefusals(a).inc({ limit: "session_create" });
    // The getters return the series already in a registry rather than registering it twice.
    expect(rateLimitRefusals(a)).toBe(rateLimitRefusals(a));
    rateLimitRefusals(a).inc({ limit: "session_create" });
    const scraped = await scrapeOf(a);
    expect(scraped.value("support_rate_limit_refusals_total", { limit: "session_create" })).toBe(2);
    expect((await scrapeOf(b)).value("support_rate_limit_refusals_total")).toBeUndefined();
    for (const family of ["process_cpu_user_seconds_total", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds", "nodejs_gc_duration_seconds"]) {
      expect(scraped.types.has(family), family).toBe(true);
    }
    // No default labels: Prometheus adds job, pod and namespace.
    expect(scraped.find("process_resident_memory_bytes")[0]!.labels).toEqual({});
  });

  it("records durations in the fixed buckets", async () => {
    const registry = createMetricsRegistry();
    httpServerDuration(registry).observe({ method: "GET", route: "/games", status: "200" }, 0.03);
    rpcServerDuration(registry).observe({ rpc_service: "a.v1.A", rpc_method: "Get", rpc_code: "ok" }, 20);
    const scraped = await scrapeOf(registry);
    const buckets = scraped.find("http_server_request_duration_seconds_bucket", { route: "/games" });
    expect(buckets.map((b) => b.labels.le)).toEqual([...DURATION_BUCKETS.map(String), "+Inf"]);
    expect(buckets.map((b) => b.value)).toEqual([0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(scraped.value("rpc_server_duration_seconds_bucket", { le: "10" })).toBe(0);
    expect(scraped.value("rpc_server_duration_seconds_bucket", { le: "+Inf" })).toBe(1);
  });

  it("keeps one series per label set, with its sum and count, escaped label values and a reset", async () => {
    const registry = createMetricsRegistry();
    const histogram = httpServerDuration(registry);
    const games = histogram.series({ method: "GET", route: "/games", status: "200" });
    expect(histogram.series({ status: "200", route: "/games", method: "GET" })).toBe(games);
    games.observe(0.005);
    games.observe(0.2);
    games.observe(Number.NaN);
    histogram.observe({ method: "GET", route: '/odd"route\\', status: "404" }, 1);
    expect(() => histogram.series({ method: "GET", route: "/x", status: "200", path: "/x" } as never)).toThrow(/no label path/);
    let scraped = await scrapeOf(registry);
    expect(scraped.value("http_server_request_duration_seconds_count", { route: "/games" })).toBe(2);
    expect(scraped.value("http_server_request_duration_seconds_sum", { route: "/games" })).toBeCloseTo(0.205);
    expect(scraped.value("http_server_request_duration_seconds_bucket", { route: "/games", le: "0.005" })).toBe(1);
    expect(scraped.value("http_server_request_duration_seconds_bucket", { route: "/games", le: "0.25" })).toBe(2);
    expect(scraped.value("http_server_request_duration_seconds_count", { route: '/odd"route\\' })).toBe(1);
    registry.resetMetrics();
    games.observe(0.5);
    scraped = await scrapeOf(registry);
    expect(scraped.value("http_server_request_duration_seconds_count", { route: "/games" })).toBe(1);
    expect(scraped.value("http_server_request_duration_seconds_bucket", { route: "/games", le: "0.005" })).toBe(0);
  });
});

describe("gauges read at scrape time", () => {
  const spec = { name: "test_backlog", help: "a backlog", labelNames: ["queue"] };

  it("adds up the samples of every source, and forgets a removed source", async () => {
    const registry = createMetricsRegistry();
    let depth = 3;
    const removeA = addScrapeSource(registry, spec, () => [{ labels: { queue: "q" }, value: depth }]);
    addScrapeSource(registry, spec, async () => [{ labels: { queue: "q" }, value: 4 }, { labels: { queue: "r" }, value: 1 }]);
    let scraped = await scrapeOf(registry);
    expect(scraped.value("test_backlog", { queue: "q" })).toBe(7);
    expect(scraped.value("test_backlog", { queue: "r" })).toBe(1);
    depth = 0;
    expect((await scrapeOf(registry)).value("test_backlog", { queue: "q" })).toBe(4);
    removeA();
    addScrapeSource(registry, spec, () => [{ labels: { queue: "s" }, value: 2 }]);
    scraped = await scrapeOf(registry);
    expect(scraped.value("test_backlog", { queue: "q" })).toBe(4);
    expect(scraped.value("test_backlog", { queue: "s" })).toBe(2);
  });

  it("keeps the last value of a source that fails or does not answer in time, and the scrape still succeeds", async () => {
    const registry = createMetricsRegistry();
    const errors: unknown[] = [];
    let mode: "ok" | "fail" | "hang" = "ok";
    addScrapeSource(
      registry,
      { name: "test_pending", help: "pending" },
      () => {
        if (mode === "fail") throw new Error("database down");
        if (mode === "hang") return new Promise<never>(() => undefined);
        return [{ value: 5 }];
      },
      { timeoutMs: 50, onError: (error) => errors.push(error) },
    );
    expect((await scrapeOf(registry)).value("test_pending")).toBe(5);
    mode = "fail";
    expect((await scrapeOf(registry)).value("test_pending")).toBe(5);
    mode = "hang";
    expect((await scrapeOf(registry)).value("test_pending")).toBe(5);
    expect(errors.map((error) => (error as Error).message)).toEqual(["database down", "no answer within 50 ms"]);
  });

  it("shares one read between the gauges of one scrape, and reads again at the next", async () => {
    const registry = createMetricsRegistry();
    let reads = 0;
    const read = sharedForScrape(async () => {
      reads += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { pending: 3 * reads, age: reads };
    });
    addScrapeSource(registry, { name: "test_queue_pending", help: "pending" }, async () => [{ value: (await read()).pending }]);
    addScrapeSource(registry, { name: "test_queue_age", help: "age" }, async () => [{ value: (await read()).age }]);
    let scraped = await scrapeOf(registry);
    expect(reads).toBe(1);
    expect([scraped.value("test_queue_pending"), scraped.value("test_queue_age")]).toEqual([3, 1]);
    scraped = await scrapeOf(registry);
    expect(reads).toBe(2);
    expect([scraped.value("test_queue_pending"), scraped.value("test_queue_age")]).toEqual([6, 2]);
  });
});

describe("metrics listener", () => {
  it("serves GET /metrics on its own port (several per process), 404 otherwise, and stops", async () => {
    const a = createMetricsRegistry();
    const b = createMetricsRegistry();
    rateLimitRefusals(a).inc({ limit: "player_api" });
    const serverA = await startMetricsServer({ host: "127.0.0.1", port: 0, registry: a, logger });
    const serverB = await startMetricsServer({ host: "127.0.0.1", port: 0, registry: b, logger });
    try {
      expect(serverA.port).not.toBe(serverB.port);
      const response = await fetch(`http://127.0.0.1:${serverA.port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(parseMetricsText(await response.text()).value("support_rate_limit_refusals_total", { limit: "player_api" })).toBe(1);
      const other = await fetch(`http://127.0.0.1:${serverB.port}/metrics`);
      expect(parseMetricsText(await other.text()).value("support_rate_limit_refusals_total")).toBeUndefined();
      expect((await fetch(`http://127.0.0.1:${serverA.port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${serverA.port}/metrics`, { method: "POST" })).status).toBe(404);
    } finally {
      await serverA.stop();
      await serverB.stop();
    }
    await expect(fetch(`http://127.0.0.1:${serverA.port}/metrics`)).rejects.toThrow();
    // A second stop is harmless.
    await serverA.stop();
  });
});
