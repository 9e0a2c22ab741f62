import { Router } from "@koa/router";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import Koa from "koa";
import { describe, expect, it } from "vitest";
import { requestMetrics } from "./request-metrics.ts";

describe("request metrics", () => {
  it("counts requests by method, route template (never the path) and the status sent", async () => {
    const registry = createMetricsRegistry();
    const router = new Router({ strict: true });
    router.get("/tickets/:ticketId/events", (ctx) => {
      ctx.status = ctx.params.ticketId === "missing" ? 404 : 200;
      ctx.body = {};
    });
    router.post("/tickets", () => {
      throw new Error("escaped every handler");
    });
    const app = new Koa();
    app.silent = true;
    app.use(requestMetrics(registry));
    app.use(router.routes());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      expect((await fetch(`${base}/tickets/7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11/events`)).status).toBe(200);
      expect((await fetch(`${base}/tickets/another/events`)).status).toBe(200);
      expect((await fetch(`${base}/tickets/missing/events`)).status).toBe(404);
      expect((await fetch(`${base}/tickets/7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11`)).status).toBe(404);
      expect((await fetch(`${base}/tickets`, { method: "POST" })).status).toBe(500);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const scraped = parseMetricsText(await registry.metrics());
    const counts = scraped
      .find("http_server_request_duration_seconds_count")
      .map((sample) => `${sample.labels.method} ${sample.labels.route} ${sample.labels.status} ${sample.value}`)
      .sort();
    expect(counts).toEqual([
      "GET /tickets/:ticketId/events 200 2",
      "GET /tickets/:ticketId/events 404 1",
      "GET unmatched 404 1",
      "POST /tickets 500 1",
    ]);
  });
});
