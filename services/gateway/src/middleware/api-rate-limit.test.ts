// The API-key limiter's rules against an in-memory stand-in for the shared counters (the players
// service's are tested against Postgres in services/players, the whole path in test/rate-limits.test.ts).
import { describe, expect, it } from "vitest";
import type { ApiKeyIdentity } from "../auth.ts";
import { loadGatewayConfig } from "../config.ts";
import { HttpProblem } from "./errors.ts";
import { createApiRateLimiter, type ApiRateLimitSettings, type UsageDelta, type UsageStore } from "./api-rate-limit.ts";

const MINUTE = 60_000;
/** 10:00:05 on some day: 55 seconds left in the window. */
const T0 = Date.UTC(2026, 10, 23, 10, 0, 5);

/** Shared counters as the players service keeps them: totals per (key, window). */
function sharedCounters() {
  const totals = new Map<string, number>();
  const calls: UsageDelta[][] = [];
  let down = false;
  const store: UsageStore = async (_windowSeconds, usages) => {
    calls.push(usages);
    if (down) throw new Error("players unavailable");
    return usages.map(({ key, windowStart, delta }) => {
      const id = `${windowStart} ${key}`;
      const total = (totals.get(id) ?? 0) + delta;
      totals.set(id, total);
      return { key, windowStart, total };
    });
  };
  return {
    store,
    calls,
    total: (key: string, at = T0) => totals.get(`${Math.floor(at / MINUTE) * 60} ${key}`) ?? 0,
    setDown: (value: boolean) => {
      down = value;
    },
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  message?: string;
  code?: string;
}

function replica(store: UsageStore, clock: { now: number }, settings: Partial<ApiRateLimitSettings> = {}) {
  const refused: string[] = [];
  const failures: boolean[] = [];
  let recovered = 0;
  const limiter = createApiRateLimiter(
    store,
    {
      defaultPerMinute: 1200,
      syncIntervalMs: 250,
      offlineShare: 0.5,
      onRefused: (limit) => refused.push(limit),
      onSyncFailed: (_error, first) => failures.push(first),
      onSyncRecovered: () => (recovered += 1),
      ...settings,
    },
    () => clock.now,
  );
  const middleware = limiter.middleware();
  /** One request of `identity` through the middleware: its status and headers. */
  async function request(identity: ApiKeyIdentity): Promise<Answer> {
    const headers: Record<string, string> = {};
    const ctx = { state: { apiKey: identity }, set: (name: string, value: string) => (headers[name] = value) };
    try {
      await middleware(ctx as never, async () => {});
      return { status: 200, headers };
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      return { status: error.status, headers: { ...headers, ...error.headers }, message: error.message, code: error.code };
    }
  }
  async function requests(identity: ApiKeyIdentity, n: number): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (let i = 0; i < n; i++) answers.push(await request(identity));
    return answers;
  }
  return { limiter, request, requests, refused, failures, recovered: () => recovered };
}

const admitted = (answers: Answer[]) => answers.filter((a) => a.status === 200).length;

const company = "c0a80101-0000-4000-8000-000000000001";
const keyA: ApiKeyIdentity = { companyId: company, apiKeyId: "a0000000-0000-4000-8000-00000000000a", companyRateLimitPerMinute: 10 };
const keyB: ApiKeyIdentity = { companyId: company, apiKeyId: "b0000000-0000-4000-8000-00000000000b", companyRateLimitPerMinute: 10 };

describe("API-key rate limits on one replica", () => {
  it("counts down RateLimit-Remaining to the company's limit, then answers 429 rate_limited with Retry-After", async () => {
    const { request, requests, refused } = replica(sharedCounters().store, { now: T0 });
    const answers = await requests(keyA, 10);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.map((a) => a.headers["RateLimit-Remaining"])).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]);
    expect(answers[0]!.headers).toMatchObject({ "RateLimit-Limit": "10", "RateLimit-Reset": "55" });
    const over = await request(keyA);
    expect(over).toMatchObject({
      status: 429,
      code: "rate_limited",
      message: "Too many requests for this company's API keys; retry in 55 seconds",
      headers: { "Retry-After": "55", "RateLimit-Limit": "10", "RateLimit-Remaining": "0", "RateLimit-Reset": "55" },
    });
    // The company's budget is shared by its keys.
    expect((await request(keyB)).status).toBe(429);
    expect(refused).toEqual(["company", "company"]);
  });

  it("limits a key by its own limit first, without using up its company's", async () => {
    const { request, requests, refused } = replica(sharedCounters().store, { now: T0 });
    const small: ApiKeyIdentity = { ...keyA, keyRateLimitPerMinute: 3 };
    const answers = await requests(small, 5);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[0]!.headers).toMatchObject({ "RateLimit-Limit": "3", "RateLimit-Remaining": "2" });
    expect(answers[3]!.message).toBe("Too many requests for this API key; retry in 55 seconds");
    expect(refused).toEqual(["api_key", "api_key"]);
    // 3 of the company's 10 used: keyB has 7 left, and its headers name the company's limit.
    expect((await request(keyB)).headers).toMatchObject({ "RateLimit-Limit": "10", "RateLimit-Remaining": "6" });
  });

  it("uses the default limit when neither the key nor its company has one", async () => {
    const { request } = replica(sharedCounters().store, { now: T0 }, { defaultPerMinute: 1200 });
    expect((await request({ companyId: company, apiKeyId: keyA.apiKeyId })).headers).toMatchObject({ "RateLimit-Limit": "1200", "RateLimit-Remaining": "1199" });
  });

  it("starts counting again when the minute rolls over, and Reset counts down to it", async () => {
    const clock = { now: T0 };
    const { request, requests } = replica(sharedCounters().store, clock);
    expect(admitted(await requests(keyA, 12))).toBe(10);
    clock.now = T0 + 54_500;
    expect(await request(keyA)).toMatchObject({ status: 429, headers: { "Retry-After": "1" } });
    clock.now = T0 + 55_000;
    const fresh = await request(keyA);
    expect(fresh).toMatchObject({ status: 200, headers: { "RateLimit-Remaining": "9", "RateLimit-Reset": "60" } });
  });
});

describe("API-key rate limits over replicas", () => {
  it("reconciles: each sync sends the counts since the last one in one batch and admits on the totals of every replica", async () => {
    const counters = sharedCounters();
    const clock = { now: T0 };
    const one = replica(counters.store, clock);
    const two = replica(counters.store, clock);
    expect(admitted(await one.requests(keyA, 6))).toBe(6);
    await one.limiter.sync();
    // One call with every bucket of the window and its delta (keys without a limit of their own have none).
    expect(counters.calls.at(-1)).toEqual([{ key: `api-company:${company}`, windowStart: Math.floor(T0 / MINUTE) * 60, delta: 6 }]);
    expect(admitted(await two.requests(keyB, 1))).toBe(1);
    await two.limiter.sync();
    // Replica two now knows of replica one's six: 10 - 7 = 3 left for it.
    expect(admitted(await two.requests(keyB, 5))).toBe(3);
    await two.limiter.sync();
    expect(counters.total(`api-company:${company}`)).toBe(10);
    // Replica one learns of replica two's four at its next sync; a second sync with nothing new
    // sends delta 0 and changes nothing.
    expect(await one.request(keyA)).toMatchObject({ status: 200 });
    await one.limiter.sync();
    await one.limiter.sync();
    expect(counters.calls.at(-1)!.map((u) => u.delta)).toEqual([0]);
    expect(await one.request(keyA)).toMatchObject({ status: 429 });
    expect(counters.total(`api-company:${company}`)).toBe(11);
  });

  it("keeps counting while a sync is in flight: what it sent and what came after both count until the answer", async () => {
    const counters = sharedCounters();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: UsageStore = async (windowSeconds, usages) => {
      await gate;
      return counters.store(windowSeconds, usages);
    };
    const { limiter, requests } = replica(slow, { now: T0 });
    expect(admitted(await requests(keyA, 4))).toBe(4);
    const syncing = limiter.sync();
    const during = await requests(keyA, 10);
    expect(admitted(during)).toBe(6);
    release();
    await syncing;
    expect(counters.total(`api-company:${company}`)).toBe(4);
    await limiter.sync();
    expect(counters.total(`api-company:${company}`)).toBe(10);
    expect(admitted(await requests(keyA, 1))).toBe(0);
  });

  it("drops the counts of a window that ended before its sync, and the answers about it", async () => {
    const counters = sharedCounters();
    const clock = { now: T0 };
    const { limiter, requests } = replica(counters.store, clock);
    await requests(keyA, 3);
    clock.now = T0 + MINUTE;
    await limiter.sync();
    // Nothing was active in the new window: no call at all.
    expect(counters.calls).toEqual([]);
    expect(admitted(await requests(keyA, 10))).toBe(10);
    await limiter.sync();
    expect(counters.total(`api-company:${company}`, clock.now)).toBe(10);
    expect(counters.total(`api-company:${company}`, T0)).toBe(0);
  });

  it("asks for an early sync once a bucket has counted a quarter of what was left, without waiting for the interval", async () => {
    const counters = sharedCounters();
    const limited: ApiKeyIdentity = { ...keyA, companyRateLimitPerMinute: 100 };
    const { limiter, requests } = replica(counters.store, { now: T0 }, { syncIntervalMs: 10_000, minSyncGapMs: 0 });
    limiter.start();
    try {
      // The first request of a bucket asks for one at once (nothing is known of the other replicas).
      await requests(limited, 1);
      await expect.poll(() => counters.calls.length, { timeout: 5_000 }).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      // 99 were left: a quarter is 24.
      await requests(limited, 23);
      await new Promise((resolve) => setImmediate(resolve));
      expect(counters.calls.length).toBe(1);
      await requests(limited, 1);
      await expect.poll(() => counters.calls.length, { timeout: 5_000 }).toBe(2);
      expect(counters.total(`api-company:${company}`)).toBe(25);
    } finally {
      await limiter.stop();
    }
  });
});

describe("API-key rate limits while the shared counters are down", () => {
  it("never fails a request for it: admits up to the replica's share on its own counts, reports once, and resends on recovery", async () => {
    const counters = sharedCounters();
    const limited: ApiKeyIdentity = { ...keyA, companyRateLimitPerMinute: 100 };
    const { limiter, requests, failures, recovered } = replica(counters.store, { now: T0 }, { offlineShare: 0.25 });
    expect(admitted(await requests(limited, 10))).toBe(10);
    counters.setDown(true);
    await limiter.sync();
    await limiter.sync();
    expect(limiter.online).toBe(false);
    expect(failures).toEqual([true, false]);
    // 25 of 100 on its own counts, the 10 before the outage included.
    const during = await requests(limited, 30);
    expect(admitted(during)).toBe(15);
    expect(during.at(-1)).toMatchObject({ status: 429, code: "rate_limited" });
    counters.setDown(false);
    await limiter.sync();
    expect(limiter.online).toBe(true);
    expect(recovered()).toBe(1);
    // Every admitted request reached the shared counters once.
    expect(counters.total(`api-company:${company}`)).toBe(25);
    expect(admitted(await requests(limited, 100))).toBe(75);
  });

  it("stops without a last sync while the store is down", async () => {
    const counters = sharedCounters();
    const { limiter, requests } = replica(counters.store, { now: T0 });
    await requests(keyA, 2);
    counters.setDown(true);
    await limiter.sync();
    const calls = counters.calls.length;
    await limiter.stop();
    expect(counters.calls.length).toBe(calls);
  });
});

describe("API rate limit settings", () => {
  it("default to 1,200 per minute, a sync every 250 ms and half a limit per replica offline, and refuse nonsense", () => {
    expect(loadGatewayConfig({})).toMatchObject({ API_RATE_LIMIT_PER_MINUTE: 1200, API_RATE_LIMIT_SYNC_INTERVAL_MS: 250, API_RATE_LIMIT_OFFLINE_SHARE: 0.5 });
    expect(loadGatewayConfig({ API_RATE_LIMIT_PER_MINUTE: "60", API_RATE_LIMIT_OFFLINE_SHARE: "1" })).toMatchObject({ API_RATE_LIMIT_PER_MINUTE: 60, API_RATE_LIMIT_OFFLINE_SHARE: 1 });
    for (const [name, bad] of [["API_RATE_LIMIT_PER_MINUTE", "0"], ["API_RATE_LIMIT_PER_MINUTE", "1.5"], ["API_RATE_LIMIT_SYNC_INTERVAL_MS", "5"], ["API_RATE_LIMIT_OFFLINE_SHARE", "0"], ["API_RATE_LIMIT_OFFLINE_SHARE", "1.5"]] as const) {
      expect(() => loadGatewayConfig({ [name]: bad }), `${name}=${bad}`).toThrow(new RegExp(name));
    }
  });
});
