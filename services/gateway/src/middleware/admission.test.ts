// Admission at the gateway's door: writes and reads in progress are bounded apart, a request over
// its bound is refused with the busy 503 before its body is read, and probes and event streams
// are never counted.
import { Writable } from "node:stream";
import { Router } from "@koa/router";
import { createLogger } from "@support/logging";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBody } from "./json-body.ts";
import { requestAdmission } from "./admission.ts";
import { errorHandler } from "./errors.ts";

describe("admission at the gateway's door", () => {
  const registry = createMetricsRegistry();
  const held: (() => void)[] = [];
  const hold = () => new Promise<void>((resolve) => held.push(resolve));
  let server: ReturnType<Koa["listen"]>;
  let base: string;

  beforeAll(async () => {
    const router = new Router({ strict: true });
    router.post("/tickets", jsonBody(1024), async (ctx) => {
      await hold();
      ctx.body = { ok: true };
    });
    router.get("/tickets", async (ctx) => {
      await hold();
      ctx.body = { ok: true };
    });
    router.get("/healthz", (ctx) => (ctx.body = { status: "ok" }));
    router.get("/agent-api/stream", async (ctx) => {
      await hold();
      ctx.body = "";
    });
    const app = new Koa();
    app.silent = true;
    app.use(errorHandler(createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) })));
    app.use(requestAdmission({ maxReads: 2, maxWrites: 1 }, registry));
    app.use(router.routes());
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (body: string) => fetch(`${base}/tickets`, { method: "POST", headers: { "content-type": "application/json" }, body });

  it("refuses a write over the bound with the busy 503 before reading its body, while reads go on, and takes writes again once one ends", async () => {
    const first = post("{}");
    await expect.poll(() => held.length).toBe(1);
    // Not JSON at all: read, it would be a 400; refused at the door, it is never looked at.
    const refused = await post("{not json");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(await refused.json()).toEqual({ code: "unavailable", message: "The service is busy; nothing was done. Retry shortly" });
    // Reads have their own bound: two at once, the third refused.
    const reads = [fetch(`${base}/tickets`), fetch(`${base}/tickets`)];
    await expect.poll(() => held.length).toBe(3);
    expect((await fetch(`${base}/tickets`)).status).toBe(503);
    // Probes and event streams are never counted nor refused.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const stream = fetch(`${base}/agent-api/stream`);
    await expect.poll(() => held.length).toBe(4);
    for (const release of held.splice(0)) release();
    expect((await first).status).toBe(200);
    expect((await Promise.all([...reads, stream])).map((answer) => answer.status)).toEqual([200, 200, 200]);
    const again = post("{}");
    await expect.poll(() => held.length).toBe(1);
    held.splice(0)[0]!();
    expect((await again).status).toBe(200);
    const scraped = parseMetricsText(await registry.metrics());
    expect(scraped.value("support_http_admission_refusals_total", { kind: "write" })).toBe(1);
    expect(scraped.value("support_http_admission_refusals_total", { kind: "read" })).toBe(1);
  });
});
