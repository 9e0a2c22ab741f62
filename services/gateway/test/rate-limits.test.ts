// API-key rate limits through the real stack: the limits come from the tenant file (content),
// the counts are shared through the players service's Postgres counters, two gateway replicas
// share one company's budget.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMetricsText } from "@support/metrics";
import { startStack, type Stack, type StackResponse } from "./stack.ts";

const SYNC_MS = 50;
/** A test may first wait for the next minute (insideOneWindow). */
const TIMEOUT_MS = 120_000;

let n = 0;
function tenant(company: Record<string, unknown>, apiKeys: Record<string, unknown>[] = [{ name: "main" }]) {
  n += 1;
  return { company: { name: `Limited ${n} ${randomUUID()}`, primaryLanguage: "en", ...company }, apiKeys };
}

/** Waits until at least `margin` seconds are left in the current minute, so that a burst stays inside one window. */
async function insideOneWindow(margin: number): Promise<void> {
  const secondsLeft = () => 60 - (Date.now() / 1000) % 60;
  await expect.poll(secondsLeft, { timeout: 70_000, interval: 250 }).toBeGreaterThanOrEqual(margin);
}

function rateLimitHeaders(response: StackResponse) {
  return {
    limit: response.headers.get("ratelimit-limit"),
    remaining: response.headers.get("ratelimit-remaining"),
    reset: response.headers.get("ratelimit-reset"),
  };
}

async function gatewayMetrics(stack: Stack) {
  return parseMetricsText(await (await fetch(stack.metricsUrls().gateway)).text());
}

describe("API-key rate limits", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ gateway: { API_RATE_LIMIT_SYNC_INTERVAL_MS: SYNC_MS } });
  });
  afterAll(() => stack?.stop());

  it("puts RateLimit-Limit, -Remaining and -Reset on every answer of an API-key endpoint, errors included", async () => {
    await insideOneWindow(10);
    const applied = await stack.applyTenant(tenant({}, [{ name: "main" }, { name: "ci", rateLimitPerMinute: 50 }]));
    const games = await stack.request("/games", { key: applied.apiKeys.main });
    expect(games.status).toBe(200);
    const first = rateLimitHeaders(games);
    // The default company limit (API_RATE_LIMIT_PER_MINUTE), one used.
    expect(first.limit).toBe("1200");
    expect(Number(first.remaining)).toBe(1199);
    expect(Number(first.reset)).toBeGreaterThanOrEqual(1);
    expect(Number(first.reset)).toBeLessThanOrEqual(60);
    const missing = await stack.request(`/tickets/${randomUUID()}/events`, { key: applied.apiKeys.main });
    expect(missing.status).toBe(404);
    expect(rateLimitHeaders(missing).remaining).toBe("1198");
    const invalid = await stack.request("/tickets?limit=-1", { key: applied.apiKeys.main });
    expect(invalid.status).toBe(400);
    expect(rateLimitHeaders(invalid).remaining).toBe("1197");
    // A key with a limit of its own below its company's: the headers name the key's.
    const ci = await stack.request("/tags", { key: applied.apiKeys.ci });
    expect(rateLimitHeaders(ci)).toMatchObject({ limit: "50", remaining: "49" });
    // No key, no limit headers: the request never got as far as the limiter.
    const anonymous = await stack.request("/games");
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers.get("ratelimit-limit")).toBeNull();
  }, TIMEOUT_MS);

  it("answers 429 rate_limited with Retry-After once the company's limit from the tenant file is used up, for all its keys", async () => {
    await insideOneWindow(10);
    const applied = await stack.applyTenant(tenant({ apiRateLimitPerMinute: 5 }, [{ name: "main" }, { name: "other" }]));
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await stack.request("/games", { key: applied.apiKeys.main });
      expect(response.status).toBe(200);
      remaining.push(rateLimitHeaders(response).remaining);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const refused = await stack.request("/games", { key: applied.apiKeys.main });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: "rate_limited", message: expect.stringMatching(/^Too many requests for this company's API keys; retry in \d+ seconds$/) });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rateLimitHeaders(refused)).toEqual({ limit: "5", remaining: "0", reset: String(retryAfter) });
    expect((await stack.request("/tags", { key: applied.apiKeys.other })).status).toBe(429);
    const metrics = await gatewayMetrics(stack);
    expect(metrics.value("support_rate_limit_refusals_total", { limit: "company" })).toBeGreaterThanOrEqual(2);
  }, TIMEOUT_MS);

  it("two gateway replicas share one company's budget: together they admit the limit within 10 %", async () => {
    const limit = 600;
    const applied = await stack.applyTenant(tenant({ apiRateLimitPerMinute: limit }));
    const key = applied.apiKeys.main!;
    const second = await stack.startGateway({ API_RATE_LIMIT_SYNC_INTERVAL_MS: SYNC_MS });
    await insideOneWindow(15);
    const replicas = [stack.request, second.request];
    // One request on each first: a warm key cache on both, so that the burst measures the limiter.
    for (const request of replicas) expect((await request("/games", { key })).status).toBe(200);
    const admitted = [1, 1];
    // Four clients per replica, each sending until it is refused.
    await Promise.all(
      replicas.flatMap((request, replica) =>
        Array.from({ length: 4 }, async () => {
          for (;;) {
            const response = await request("/games", { key });
            if (response.status === 429) return;
            expect(response.status).toBe(200);
            admitted[replica]! += 1;
          }
        }),
      ),
    );
    const total = admitted[0]! + admitted[1]!;
    expect(total).toBeGreaterThanOrEqual(limit * 0.9);
    expect(total).toBeLessThanOrEqual(limit * 1.1);
    // Both took part, and each now refuses: the budget is spent for both.
    expect(Math.min(...admitted)).toBeGreaterThan(0);
    for (const request of replicas) expect((await request("/games", { key })).status).toBe(429);
  }, TIMEOUT_MS);

  it("keeps answering while the shared counters are down, and reports it", async () => {
    const applied = await stack.applyTenant(tenant({}));
    const before = (await gatewayMetrics(stack)).value("support_rate_limit_sync_failures_total") ?? 0;
    await stack.stopService("players");
    try {
      // Reference reads need content only: they go on, limited and with their headers.
      await expect
        .poll(async () => {
          const response = await stack.request("/games", { key: applied.apiKeys.main });
          expect(response.status).toBe(200);
          expect(response.headers.get("ratelimit-limit")).toBe("1200");
          return (await gatewayMetrics(stack)).value("support_rate_limit_sync_failures_total") ?? 0;
        }, { timeout: 30_000, interval: 100 })
        .toBeGreaterThan(before);
    } finally {
      await stack.startService("players");
    }
  }, TIMEOUT_MS);
});
