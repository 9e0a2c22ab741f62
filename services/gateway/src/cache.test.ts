import { describe, expect, it } from "vitest";
import { CoalescingCache, createReferenceCaches } from "./cache.ts";
import { createSessionCache, sessionSize, type PlayerSession } from "./routes/player-side.ts";

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe("CoalescingCache", () => {
  it("loads a miss once for concurrent callers and answers hits synchronously", async () => {
    const cache = new CoalescingCache<string>({ max: 10, ttlMs: 10_000 });
    let loads = 0;
    const load = async (key: string) => {
      loads++;
      return `value-${key}`;
    };
    const [a, b] = await Promise.all([cache.get("k", load), cache.get("k", load)]);
    expect([a, b, loads]).toEqual(["value-k", "value-k", 1]);
    expect(cache.get("k", load)).toBe("value-k");
    expect(loads).toBe(1);
  });

  it("does not store a load overtaken by an eviction", async () => {
    const cache = new CoalescingCache<string>({ max: 10, ttlMs: 10_000 });
    const first = deferred<string>();
    const running = cache.get("k", () => first.promise);
    cache.evict("k");
    first.resolve("stale");
    expect(await running).toBe("stale");
    const fresh = cache.get("k", async () => "fresh");
    expect(fresh).toBeInstanceOf(Promise);
    await fresh;
    expect(cache.get("k", async () => "other")).toBe("fresh");
  });

  it("drops the entries whose value matches, and only those", async () => {
    const cache = new CoalescingCache<{ apiKeyId: string }>({ max: 10, ttlMs: 10_000 });
    await cache.get("hash-a", async () => ({ apiKeyId: "a" }));
    await cache.get("hash-a2", async () => ({ apiKeyId: "a" }));
    await cache.get("hash-b", async () => ({ apiKeyId: "b" }));
    cache.evictWhere((value) => value.apiKeyId === "a");
    expect(cache.size).toBe(1);
    expect(cache.get("hash-b", async () => ({ apiKeyId: "reloaded" }))).toEqual({ apiKeyId: "b" });
    expect(cache.get("hash-a", async () => ({ apiKeyId: "reloaded" }))).toBeInstanceOf(Promise);
  });

  it("does not cache failures", async () => {
    const cache = new CoalescingCache<string>({ max: 10, ttlMs: 10_000 });
    await expect(cache.get("k", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", async () => "ok")).toBe("ok");
  });

  it("expires entries after their TTL, per value when asked", async () => {
    const cache = new CoalescingCache<string>({ max: 10, ttlMs: 10_000, ttlOf: (v) => (v === "" ? 20 : 10_000) });
    await cache.get("neg", async () => "");
    await cache.get("pos", async () => "company");
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get("neg", async () => "reloaded")).toBeInstanceOf(Promise);
    expect(cache.get("pos", async () => "reloaded")).toBe("company");
  });

  it("keeps at most `max` entries", async () => {
    const cache = new CoalescingCache<string>({ max: 2, ttlMs: 10_000 });
    for (const key of ["a", "b", "c"]) await cache.get(key, async () => key);
    expect(cache.size).toBe(2);
  });
});

describe("reference caches", () => {
  it("evicts one company's entries of every kind and leaves other companies alone", async () => {
    const caches = createReferenceCaches({ ttlMs: 10_000 });
    for (const kind of ["games", "tags", "fields", "announcements"] as const) {
      await caches[kind].get("A", async () => `${kind}-A`);
      await caches[kind].get("B", async () => `${kind}-B`);
    }
    caches.evictCompany("A");
    for (const kind of ["games", "tags", "fields", "announcements"] as const) {
      expect(caches[kind].get("A", async () => "x")).toBeInstanceOf(Promise);
      expect(caches[kind].get("B", async () => "x")).toBe(`${kind}-B`);
    }
  });
});

describe("reference caches' size bound", () => {
  it("keeps at most a quarter of maxBytes of bodies per kind, the least recently used going first", async () => {
    // 4,000 bytes in all: 1,000 per kind, room for three 300-byte bodies.
    const caches = createReferenceCaches({ ttlMs: 10_000, maxBytes: 4_000 });
    const body = (company: string) => company.repeat(300);
    for (const company of ["a", "b", "c", "d"]) await caches.games.get(company, async () => body(company));
    expect(caches.games.size).toBe(3);
    expect(caches.games.calculatedSize).toBe(900);
    expect(caches.games.get("a", async () => "reloaded")).toBeInstanceOf(Promise);
    expect(caches.games.get("d", async () => "reloaded")).toBe(body("d"));
    // Other kinds have their own quarter.
    await caches.tags.get("a", async () => body("a"));
    expect(caches.tags.size).toBe(1);
  });

  it("answers a body larger than the bound without keeping it", async () => {
    const caches = createReferenceCaches({ ttlMs: 10_000, maxBytes: 4_000 });
    expect(await caches.fields.get("a", async () => "é".repeat(600))).toBe("é".repeat(600)); // 1,200 UTF-8 bytes
    expect(caches.fields.size).toBe(0);
  });
});

describe("session cache's size bound", () => {
  const session = (fieldText: string): PlayerSession => ({
    id: "s",
    verification: "unverified",
    emailVerified: false,
    loadedAt: Date.now(),
    companyId: "c",
    gameId: "g",
    environmentId: "e",
    language: "en",
    resource: undefined,
    player: { id: "p" },
    tags: ["bug"],
    fields: { note: fieldText },
    expiresAt: Date.now() + 60_000,
  });

  it("counts a session by its metadata, so a few large ones push out the least recently used", async () => {
    expect(sessionSize(session("x".repeat(10_000)))).toBeGreaterThan(10_000);
    const cache = createSessionCache({ max: 50_000, maxBytes: 50_000 });
    for (const code of ["a", "b", "c", "d", "e"]) await cache.get(code, async () => session("x".repeat(10_000)));
    expect(cache.size).toBe(4);
    expect(cache.calculatedSize).toBeLessThanOrEqual(50_000);
    expect(cache.get("a", async () => session(""))).toBeInstanceOf(Promise);
    // Small sessions: the entry bound applies first.
    const small = createSessionCache({ max: 3, maxBytes: 50_000 });
    for (const code of ["a", "b", "c", "d"]) await small.get(code, async () => session(""));
    expect(small.size).toBe(3);
  });
});
