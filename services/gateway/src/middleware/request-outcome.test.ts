import { Router } from "@koa/router";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import Koa from "koa";
import { describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { Writable } from "node:stream";
import { requestOutcome } from "./request-outcome.ts";

describe("request outcome", () => {
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
    const lines: { method: string; path: string; status: number; ms: number }[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = new Koa();
    app.silent = true;
    app.use(requestOutcome(registry, createLogger({ service: "test", destination })));
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
    // The access log has one line per request, with the path and never the route template.
    expect(lines.map((line) => `${line.method} ${line.path} ${line.status}`)).toEqual([
      "GET /tickets/7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11/events 200",
      "GET /tickets/another/events 200",
      "GET /tickets/missing/events 404",
      "GET /tickets/7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11 404",
      "POST /tickets 500",
    ]);
    expect(lines.every((line) => typeof line.ms === "number")).toBe(true);
  });
});
