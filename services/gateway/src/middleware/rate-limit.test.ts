import { describe, expect, it } from "vitest";
import type { Context } from "koa";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import { HttpProblem } from "./errors.ts";
import {
  addressBucket, clientAddress, createPublicRateLimiter, ipv6Prefix64, parseTrustProxy, refusalCounter, tokenBucketOf, type RateLimitBucket, type RateLimitDecision,
} from "./rate-limit.ts";

describe("TRUST_PROXY", () => {
  it("reads false, true and a number of proxies", () => {
    for (const off of ["", "false", "FALSE", "0"]) expect(parseTrustProxy(off)).toEqual({ mode: "none" });
    expect(parseTrustProxy("true")).toEqual({ mode: "first" });
    expect(parseTrustProxy("2")).toEqual({ mode: "hops", hops: 2 });
    for (const bad of ["yes", "-1", "1.5", "100"]) expect(() => parseTrustProxy(bad)).toThrow(/TRUST_PROXY/);
  });
});

describe("client address", () => {
  it("is the socket's peer, whatever X-Forwarded-For says, unless a proxy is trusted", () => {
    expect(clientAddress("198.51.100.9", "203.0.113.5", { mode: "none" })).toBe("198.51.100.9");
  });

  it("is the first X-Forwarded-For address with TRUST_PROXY=true", () => {
    expect(clientAddress("10.0.0.2", "203.0.113.5, 10.0.0.1", { mode: "first" })).toBe("203.0.113.5");
    expect(clientAddress("10.0.0.2", ["203.0.113.5", "10.0.0.1"], { mode: "first" })).toBe("203.0.113.5");
  });

  it("is what the outermost of N appending proxies saw, ignoring what the client prepended", () => {
    // client wrote "1.1.1.1"; proxy A (seen by us as 10.0.0.2) appended the real client 203.0.113.5
    expect(clientAddress("10.0.0.2", "1.1.1.1, 203.0.113.5", { mode: "hops", hops: 1 })).toBe("203.0.113.5");
    // two proxies: A appended the client, B appended A
    expect(clientAddress("10.0.0.3", "1.1.1.1, 203.0.113.5, 10.0.0.2", { mode: "hops", hops: 2 })).toBe("203.0.113.5");
    // fewer entries than proxies: the leftmost one there is
    expect(clientAddress("10.0.0.3", "203.0.113.5", { mode: "hops", hops: 3 })).toBe("203.0.113.5");
  });

  it("drops ports and brackets, and falls back to the peer for what is not an address", () => {
    expect(clientAddress("10.0.0.2", "203.0.113.5:4711", { mode: "first" })).toBe("203.0.113.5");
    expect(clientAddress("10.0.0.2", "[2001:db8::1]:443", { mode: "first" })).toBe("2001:db8::1");
    expect(clientAddress("10.0.0.2", "unknown", { mode: "first" })).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", " , ", { mode: "first" })).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", undefined, { mode: "first" })).toBe("10.0.0.2");
  });

  it("counts IPv6 clients by their /64 and IPv4-mapped addresses as IPv4", () => {
    expect(ipv6Prefix64("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(ipv6Prefix64("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipv6Prefix64("::1")).toBe("0:0:0:0::/64");
    expect(ipv6Prefix64("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressBucket("2001:0db8:0001:0002:ffff:0:0:9")).toBe(addressBucket("2001:db8:1:2::7"));
    expect(addressBucket("::ffff:203.0.113.5")).toBe("203.0.113.5");
    expect(addressBucket("203.0.113.5")).toBe("203.0.113.5");
  });

  it("counts only uuid-shaped tokens, lower-cased", () => {
    expect(tokenBucketOf("3F1C2A9E-8D47-4B6A-9C1E-2B7F5D0A6E11")).toBe("3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11");
    expect(tokenBucketOf("nope")).toBeUndefined();
    expect(tokenBucketOf(["3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11"])).toBeUndefined();
  });
});

describe("public rate limiter", () => {
  const TOKEN = "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11";

  function setup(
    decide: (buckets: RateLimitBucket[]) => RateLimitDecision,
    settings: { perAddress?: number; perToken?: number; keyPrefix?: string; credential?: "token" | "session"; refusedCacheMax?: number; onRefused?: () => void } = {},
  ) {
    const calls: RateLimitBucket[][] = [];
    let now = 1_000_000;
    const limiter = createPublicRateLimiter(
      async (_window, buckets) => {
        calls.push(buckets);
        return decide(buckets);
      },
      {
        perAddress: settings.perAddress ?? 120,
        perToken: settings.perToken ?? 6000,
        windowSeconds: 60,
        trustProxy: { mode: "none" },
        keyPrefix: settings.keyPrefix,
        credential: settings.credential,
        refusedCacheMax: settings.refusedCacheMax,
        onRefused: settings.onRefused,
      },
      () => now,
    );
    const middleware = limiter.middleware((ctx) => tokenBucketOf(ctx.query.token));
    const run = async (address = "198.51.100.9", token: string | undefined = TOKEN) => {
      const ctx = { req: { socket: { remoteAddress: address } }, headers: {}, query: token ? { token } : {} } as unknown as Context;
      let passed = false;
      await middleware(ctx, async () => {
        passed = true;
      });
      return passed;
    };
    return { calls, run, advance: (ms: number) => (now += ms) };
  }

  it("counts the address first, then the token, in one call", async () => {
    const t = setup(() => ({ allowed: true, retryAfterSeconds: 30 }));
    expect(await t.run()).toBe(true);
    expect(t.calls).toEqual([[{ key: "address:198.51.100.9", limit: 120 }, { key: `token:${TOKEN}`, limit: 6000 }]]);
  });

  it("answers 429 rate_limited with retry-after, then refuses the same bucket without asking again until the window ends", async () => {
    const t = setup((buckets) => ({ allowed: false, exceededKey: buckets[0]!.key, retryAfterSeconds: 12 }));
    const problem = await t.run().catch((error: unknown) => error);
    expect(problem).toBeInstanceOf(HttpProblem);
    expect(problem).toMatchObject({ status: 429, code: "rate_limited", headers: { "Retry-After": "12" } });
    expect((problem as Error).message).toBe("Too many requests from this address; retry in 12 seconds");

    t.advance(5_000);
    await expect(t.run()).rejects.toMatchObject({ status: 429, headers: { "Retry-After": "7" } });
    expect(t.calls).toHaveLength(1);
    // Another address is not affected by the cached refusal.
    await expect(t.run("198.51.100.10")).rejects.toMatchObject({ status: 429 });
    expect(t.calls).toHaveLength(2);

    t.advance(7_001);
    await expect(t.run()).rejects.toMatchObject({ status: 429 });
    expect(t.calls).toHaveLength(3);
  });

  it("remembers at most refusedCacheMax refused buckets, the least recently used going first", async () => {
    const t = setup((buckets) => ({ allowed: false, exceededKey: buckets[0]!.key, retryAfterSeconds: 30 }), { refusedCacheMax: 2 });
    for (const address of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) await expect(t.run(address)).rejects.toMatchObject({ status: 429 });
    expect(t.calls).toHaveLength(3);
    // .3 and .2 are remembered (refused without a call); .1 was pushed out and is asked again.
    await expect(t.run("198.51.100.3")).rejects.toMatchObject({ status: 429 });
    await expect(t.run("198.51.100.2")).rejects.toMatchObject({ status: 429 });
    expect(t.calls).toHaveLength(3);
    await expect(t.run("198.51.100.1")).rejects.toMatchObject({ status: 429 });
    expect(t.calls).toHaveLength(4);
  });

  it("counts every refusal, asked or cached, under the limiter's name and nothing else", async () => {
    const registry = createMetricsRegistry();
    let allowed = true;
    const t = setup((buckets) => ({ allowed, exceededKey: buckets[0]!.key, retryAfterSeconds: 12 }), { onRefused: refusalCounter(registry, "session_create") });
    expect(await t.run()).toBe(true);
    allowed = false;
    await expect(t.run()).rejects.toMatchObject({ status: 429 });
    await expect(t.run()).rejects.toMatchObject({ status: 429 }); // refused from the cache
    const scraped = parseMetricsText(await registry.metrics());
    expect(scraped.find("support_rate_limit_refusals_total")).toEqual([{ name: "support_rate_limit_refusals_total", labels: { limit: "session_create" }, value: 2 }]);
  });

  it("names the token when the token's budget is spent", async () => {
    const t = setup(() => ({ allowed: false, exceededKey: `token:${TOKEN}`, retryAfterSeconds: 3 }));
    await expect(t.run()).rejects.toMatchObject({ message: "Too many requests for this environment token; retry in 3 seconds" });
  });

  it("skips a limit set to 0, and asks nothing when both are off", async () => {
    const t = setup(() => ({ allowed: true, retryAfterSeconds: 1 }), { perToken: 0 });
    await t.run();
    expect(t.calls).toEqual([[{ key: "address:198.51.100.9", limit: 120 }]]);
    const off = setup(() => ({ allowed: false, retryAfterSeconds: 1 }), { perAddress: 0, perToken: 0 });
    expect(await off.run()).toBe(true);
    expect(off.calls).toHaveLength(0);
  });

  it("keeps another group's buckets apart with a key prefix, and names a session's budget", async () => {
    const t = setup((buckets) => ({ allowed: false, exceededKey: buckets[1]!.key, retryAfterSeconds: 4 }), {
      perAddress: 600, perToken: 120, keyPrefix: "player-api:", credential: "session",
    });
    await expect(t.run()).rejects.toMatchObject({ status: 429, message: "Too many requests for this session; retry in 4 seconds", headers: { "Retry-After": "4" } });
    expect(t.calls).toEqual([[{ key: "player-api:address:198.51.100.9", limit: 600 }, { key: `player-api:session:${TOKEN}`, limit: 120 }]]);
    const byAddress = setup((buckets) => ({ allowed: false, exceededKey: buckets[0]!.key, retryAfterSeconds: 2 }), { keyPrefix: "player-api:", credential: "session" });
    await expect(byAddress.run()).rejects.toMatchObject({ message: "Too many requests from this address; retry in 2 seconds" });
  });

  it("counts a request without a usable token against its address only", async () => {
    const t = setup(() => ({ allowed: true, retryAfterSeconds: 1 }));
    await t.run("198.51.100.9", "not-a-uuid");
    expect(t.calls).toEqual([[{ key: "address:198.51.100.9", limit: 120 }]]);
  });
});
