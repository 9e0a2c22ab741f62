// Throttling of failed API key authentications per client address, through real HTTP against a
// gateway whose players service is an in-memory ConsumeRateLimit with the same fixed windows.
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { PlayersService } from "@support/proto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../config.ts";
import { validateResponse } from "../openapi/validation.ts";
import { startTestGateway, type TestGateway } from "../test-helpers.ts";

const COMPANY = "cccccccc-0000-4000-8000-000000000001";
const FORBIDDEN = { code: "unauthenticated", message: "A valid API key is required" };

/** players.ConsumeRateLimit in memory: counts per key and epoch-aligned window, refused over the limit. */
class FakeCounters {
  readonly counts = new Map<string, number>();
  readonly calls: { windowSeconds: number; keys: string[] }[] = [];
  unreachable = false;

  client() {
    return createClient(
      PlayersService,
      createRouterTransport(({ service }) =>
        service(PlayersService, {
          consumeRateLimit: (request) => {
            this.calls.push({ windowSeconds: request.windowSeconds, keys: request.buckets.map((bucket) => bucket.key) });
            if (this.unreachable) throw new ConnectError("connect ECONNREFUSED 10.0.0.9:50054", Code.Unavailable);
            const now = Date.now() / 1000;
            const start = Math.floor(now / request.windowSeconds) * request.windowSeconds;
            const retryAfterSeconds = Math.max(1, Math.ceil(start + request.windowSeconds - now));
            for (const bucket of request.buckets) {
              const counter = `${bucket.key}@${start}`;
              const count = (this.counts.get(counter) ?? 0) + 1;
              this.counts.set(counter, count);
              if (count > bucket.limit) return { allowed: false, exceededKey: bucket.key, retryAfterSeconds };
            }
            return { allowed: true, retryAfterSeconds };
          },
        }),
      ),
    );
  }
}

const unknownKey = () => `sk_unknown_${crypto.randomUUID().replaceAll("-", "")}`;

describe("failed API key authentications per client address", () => {
  const counters = new FakeCounters();
  let t: TestGateway;

  beforeAll(async () => {
    // TRUST_PROXY=true: each test speaks from addresses of its own through X-Forwarded-For.
    t = await startTestGateway({ players: counters.client(), config: { API_KEY_FAILURES_PER_ADDRESS: 5, API_KEY_FAILURE_WINDOW_SECONDS: 60, TRUST_PROXY: "true" } });
  });
  afterAll(() => t.stop());
  beforeEach(() => {
    counters.calls.length = 0;
    counters.unreachable = false;
    t.content.calls.clear();
  });

  const from = (address: string, key?: string, headers: Record<string, string> = {}) =>
    t.request("/games", { key, headers: { "x-forwarded-for": address, ...headers } });

  it("answers 403 up to the limit, then 429 rate_limited with retry-after, without looking keys up any more", async () => {
    for (let i = 0; i < 5; i++) {
      const refused = await from("203.0.113.10", unknownKey());
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(FORBIDDEN);
    }
    expect(counters.calls).toHaveLength(5);
    expect(counters.calls[0]).toEqual({ windowSeconds: 60, keys: ["api-key-failure:address:203.0.113.10"] });

    const limited = await from("203.0.113.10", unknownKey());
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^Too many requests with invalid API keys from this address; retry in \d+ seconds$/) });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The headers the document requires on every 429 of an API-key operation, of this limit.
    expect(limited.headers.get("ratelimit-limit")).toBe("5");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("ratelimit-reset")).toBe(String(retryAfter));
    expect(validateResponse("listGames", 429, limited.body, limited.headers)).toBeNull();

    // Blocked in this replica until the window ends: neither content nor players is asked again.
    const lookups = t.content.count("authenticateApiKey");
    const consumed = counters.calls.length;
    for (let i = 0; i < 20; i++) expect((await from("203.0.113.10", unknownKey())).status).toBe(429);
    expect(t.content.count("authenticateApiKey")).toBe(lookups);
    expect(counters.calls).toHaveLength(consumed);
    // Another address is not concerned.
    expect((await from("198.51.100.20", unknownKey())).status).toBe(403);
    const metrics = await t.gateway.registry.getSingleMetricAsString("support_rate_limit_refusals_total");
    expect(metrics).toMatch(/support_rate_limit_refusals_total\{limit="api_key_failures"\} 21$/m);
  });

  it("counts malformed keys, other schemes and revoked keys, never a request without credentials", async () => {
    for (let i = 0; i < 10; i++) expect((await from("203.0.113.30")).status).toBe(403);
    expect(counters.calls).toEqual([]);

    const revoked = t.content.addKey(COMPANY);
    t.content.revoke(revoked);
    expect((await from("203.0.113.30", revoked)).status).toBe(403);
    expect((await from("203.0.113.30", "short")).status).toBe(403);
    expect((await t.request("/games", { headers: { "x-forwarded-for": "203.0.113.30", authorization: "Basic dXNlcjpwYXNz" } })).status).toBe(403);
    expect(counters.calls).toHaveLength(3);
  });

  it("keeps serving a key seen valid from the same address while the address is blocked", async () => {
    const inUse = t.content.addKey(COMPANY);
    expect((await from("203.0.113.40", inUse)).status).toBe(200);
    for (let i = 0; i < 6; i++) await from("203.0.113.40", unknownKey());
    expect((await from("203.0.113.40", unknownKey())).status).toBe(429);

    // Even after its cache entry is gone, the key in use is looked up again and served.
    t.gateway.caches.keys.clear();
    expect((await from("203.0.113.40", inUse)).status).toBe(200);
    expect(t.content.count("authenticateApiKey")).toBeGreaterThanOrEqual(2);
    // A key this replica has not seen yet waits for the end of the window, like a guess.
    const fresh = t.content.addKey(COMPANY);
    expect((await from("203.0.113.40", fresh)).status).toBe(429);
    // A key seen valid but revoked since is refused, and counted as blocked.
    t.content.revoke(inUse);
    t.gateway.caches.keys.clear();
    expect((await from("203.0.113.40", inUse)).status).toBe(429);
  });

  it("answers 403 as before when the shared counters cannot be reached", async () => {
    counters.unreachable = true;
    for (let i = 0; i < 8; i++) {
      const refused = await from("203.0.113.50", unknownKey());
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(FORBIDDEN);
    }
    expect(counters.calls).toHaveLength(8);
  });
});

describe("the failure limit's window and switch", () => {
  const counters = new FakeCounters();
  let t: TestGateway | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it("lets the address try again when its window ends", async () => {
    t = await startTestGateway({ players: counters.client(), config: { API_KEY_FAILURES_PER_ADDRESS: 2, API_KEY_FAILURE_WINDOW_SECONDS: 1 } });
    const valid = t.content.addKey(COMPANY);
    let limited;
    for (let i = 0; i < 5 && limited === undefined; i++) {
      const response = await t.request("/games", { key: unknownKey() });
      if (response.status === 429) limited = response;
    }
    expect(limited?.headers.get("retry-after")).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // A new window: a key never seen here is looked up and served.
    expect((await t.request("/games", { key: valid })).status).toBe(200);
  });

  it("never counts with API_KEY_FAILURES_PER_ADDRESS=0", async () => {
    t = await startTestGateway({ players: counters.client(), config: { API_KEY_FAILURES_PER_ADDRESS: 0 } });
    counters.calls.length = 0;
    for (let i = 0; i < 10; i++) expect((await t.request("/games", { key: unknownKey() })).status).toBe(403);
    expect(counters.calls).toEqual([]);
  });

  it("reads its settings from the environment, with safe defaults", () => {
    expect(loadGatewayConfig({})).toMatchObject({ API_KEY_FAILURES_PER_ADDRESS: 30, API_KEY_FAILURE_WINDOW_SECONDS: 60 });
    expect(loadGatewayConfig({ API_KEY_FAILURES_PER_ADDRESS: "0" }).API_KEY_FAILURES_PER_ADDRESS).toBe(0);
    for (const [name, bad] of [["API_KEY_FAILURES_PER_ADDRESS", "-1"], ["API_KEY_FAILURES_PER_ADDRESS", "2.5"], ["API_KEY_FAILURE_WINDOW_SECONDS", "0"], ["API_KEY_FAILURE_WINDOW_SECONDS", "86401"]] as const) {
      expect(() => loadGatewayConfig({ [name]: bad }), `${name}=${bad}`).toThrow(name);
    }
  });
});
