// The gateway's health endpoints and its behaviour with a service down, against the real
// services: readiness depends on the gateway alone, /healthz/dependencies reports every
// service, and a stopped service makes only the routes that need it answer 503, at once once
// its circuit breaker is open.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

const BREAKER_FAILURES = 3;

describe("health through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  beforeAll(async () => {
    // Opened breakers stay open for the whole test: no trial call lets a request wait.
    stack = await startStack({ gateway: { RPC_BREAKER_FAILURES: BREAKER_FAILURES, RPC_BREAKER_OPEN_MS: 600_000 } });
    a = await stack.applyTenant(tenantA);
  });
  afterAll(() => stack?.stop());

  it("answers 200 on /healthz, /readyz and /healthz/dependencies when every service is SERVING", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const response = await stack.request(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ok" });
    }
    const response = await stack.request("/healthz/dependencies");
    expect(response.status).toBe(200);
    const up = { status: "ok", breaker: "closed", addresses: { known: 1, ejected: 0 } };
    expect(response.body).toEqual({ status: "ok", services: { content: up, tickets: up, media: up, players: up, webhooks: up, email: up } });
  });

  it("with media stopped: stays ready, keeps other routes 200, answers media's routes 503 within 100 ms once the breaker is open", async () => {
    const key = a.apiKeys.main!;
    const attachment = "AAAAAAAAAAAAAAAAAAAAAAAA";
    await stack.stopService("media");

    // Until the breaker opens, each call is refused by the stopped port: 503 too, just slower.
    for (let i = 0; i < BREAKER_FAILURES; i += 1) {
      const response = await stack.request(`/attachments/${attachment}`, { key, redirect: "manual" });
      expect(response.status, response.text).toBe(503);
    }
    await eventually(async () => {
      // Its health check result is shared for a second: wait until it has seen media stopped too.
      const report = (await stack.request("/healthz/dependencies")).body as { services: { media: { breaker: string; status: string } } };
      return report.services.media.breaker === "open" && report.services.media.status === "unavailable";
    });

    const latencies: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      const started = performance.now();
      const response = await stack.request(`/attachments/${attachment}`, { key, redirect: "manual" });
      latencies.push(performance.now() - started);
      expect(response.status, response.text).toBe(503);
      expect(response.headers.get("retry-after")).toBe("2");
      expect(response.body).toEqual({ code: "unavailable", message: "A dependency is unavailable, try again later" });
    }
    // The median, so that one request delayed by the busy machine does not decide.
    const median = latencies.sort((x, y) => x - y)[Math.floor(latencies.length / 2)]!;
    expect(median).toBeLessThan(100);

    expect((await stack.request("/tickets", { key })).status).toBe(200);
    expect((await stack.request("/games", { key })).status).toBe(200);
    expect((await stack.request("/readyz")).status).toBe(200);

    const response = await stack.request("/healthz/dependencies");
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      code: "unavailable",
      message: "Unavailable: media",
      status: "degraded",
      services: { content: { status: "ok", breaker: "closed" }, media: { status: "unavailable", breaker: "open" } },
    });
    expect(response.text).not.toMatch(/127\.0\.0\.1|:\d{4,5}/);
  });
});
