import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bearerKey, hashApiKey } from "./auth.ts";
import { loadGatewayConfig } from "./config.ts";
import { applyContentEvent } from "./events/content-changed.consumer.ts";
import { startTestGateway, type TestGateway } from "./test-helpers.ts";

const COMPANY_A = "aaaaaaaa-0000-4000-8000-000000000001";
const FORBIDDEN = { code: "unauthenticated", message: "A valid API key is required" };

describe("bearerKey", () => {
  it("takes the key of a Bearer header, any case of the scheme", () => {
    expect(bearerKey("Bearer sk_live_0123456789abcdef")).toBe("sk_live_0123456789abcdef");
    expect(bearerKey("bearer sk_live_0123456789abcdef")).toBe("sk_live_0123456789abcdef");
  });

  it("refuses other schemes, empty keys and implausible keys", () => {
    for (const header of [undefined, "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Token sk_live_0123456789abcdef", "Bearersk_live_0123456789abcdef", "Bearer short", "Bearer has spaces in it 0123456789", `Bearer ${"a".repeat(513)}`]) {
      expect(bearerKey(header)).toBeUndefined();
    }
  });

  it("hashes keys to SHA-256 hex", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("cache bounds", () => {
  it("are read from the environment and refused unless positive integers", () => {
    expect(loadGatewayConfig({ API_KEY_CACHE_MAX: "7" }).API_KEY_CACHE_MAX).toBe(7);
    for (const name of ["API_KEY_CACHE_MAX", "REFERENCE_CACHE_MAX_COMPANIES", "SESSION_CACHE_MAX"]) {
      for (const bad of ["0", "-1", "2.5"]) expect(() => loadGatewayConfig({ [name]: bad }), `${name}=${bad}`).toThrow(new RegExp(name));
    }
  });
});

describe("API key authentication", () => {
  let t: TestGateway;
  let key: string;

  beforeAll(async () => {
    t = await startTestGateway();
    key = t.content.addKey(COMPANY_A);
  });
  afterAll(() => t.stop());
  beforeEach(() => {
    t.gateway.caches.keys.clear();
    t.content.calls.clear();
    t.content.failure = undefined;
    t.content.delayMs = 0;
  });

  it("lets a valid key through and scopes the request to its company", async () => {
    t.content.addGame(COMPANY_A, "Alpha");
    const response = await t.request("/games", { key });
    expect(response.status).toBe(200);
    expect((response.body as { games: { name: string }[] }).games.map((g) => g.name)).toContain("Alpha");
  });

  it("answers 403 with one identical body for a missing header, another scheme, an unknown and a revoked key", async () => {
    const revokedKey = t.content.addKey(COMPANY_A);
    t.content.revoke(revokedKey);
    const answers = await Promise.all([
      t.request("/games"),
      t.request("/games", { headers: { authorization: `Basic ${Buffer.from("user:pass").toString("base64")}` } }),
      t.request("/games", { headers: { authorization: key } }),
      t.request("/games", { key: "sk_test_00000000000000000000000000000000" }),
      t.request("/games", { key: revokedKey }),
      t.request("/games", { key: "garbage" }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(FORBIDDEN);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    }
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  });

  it("asks content once for N requests with the same key", async () => {
    for (let i = 0; i < 20; i++) expect((await t.request("/fields", { key })).status).toBe(200);
    expect(t.content.count("authenticateApiKey")).toBe(1);
  });

  it("shares one RPC between concurrent first requests with the same key", async () => {
    t.content.delayMs = 50;
    const answers = await Promise.all(Array.from({ length: 10 }, () => t.request("/fields", { key })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(t.content.count("authenticateApiKey")).toBe(1);
  });

  it("remembers unknown keys briefly, so repeating garbage costs no RPC each", async () => {
    for (let i = 0; i < 5; i++) expect((await t.request("/games", { key: "sk_test_unknown_unknown_unknown" })).status).toBe(403);
    expect(t.content.count("authenticateApiKey")).toBe(1);
  });

  it("never asks content about a header that cannot hold a key", async () => {
    await t.request("/games", { headers: { authorization: "Bearer x" } });
    expect(t.content.count("authenticateApiKey")).toBe(0);
  });

  it("answers 503 (not 403) when content is down, and does not cache the outage", async () => {
    t.content.failure = new ConnectError("connect ECONNREFUSED", Code.Unavailable);
    const response = await t.request("/games", { key });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: "unavailable" });
    t.content.failure = undefined;
    expect((await t.request("/games", { key })).status).toBe(200);
  });

  it("refuses a key as soon as its revocation event arrives", async () => {
    const victim = t.content.addKey(COMPANY_A);
    expect((await t.request("/games", { key: victim })).status).toBe(200);
    const keyHash = t.content.revoke(victim);
    // Still trusted from the cache until the event (within the TTL).
    expect((await t.request("/games", { key: victim })).status).toBe(200);
    const revokedAt = new Date().toISOString();
    const data = { apiKeyId: randomUUID(), name: "victim", keyPrefix: "psk_test", keyHash, createdAt: revokedAt, revokedAt };
    applyContentEvent({ event: { id: randomUUID(), type: "content.api_key.revoked", version: 1, occurredAt: revokedAt, companyId: COMPANY_A, data } }, t.gateway.caches);
    expect((await t.request("/games", { key: victim })).status).toBe(403);
  });

  it("honours revocation within the TTL without an event", async () => {
    const short = await startTestGateway({ config: { API_KEY_CACHE_TTL_MS: 100 } });
    try {
      const victim = short.content.addKey(COMPANY_A);
      expect((await short.request("/games", { key: victim })).status).toBe(200);
      short.content.revoke(victim);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect((await short.request("/games", { key: victim })).status).toBe(403);
    } finally {
      await short.stop();
    }
  });

  it("keeps at most API_KEY_CACHE_MAX keys, the least recently used going first", async () => {
    const small = await startTestGateway({ config: { API_KEY_CACHE_MAX: 2 } });
    try {
      const [first, second, third] = [small.content.addKey(COMPANY_A), small.content.addKey(COMPANY_A), small.content.addKey(COMPANY_A)];
      for (const k of [first, second, third]) expect((await small.request("/games", { key: k })).status).toBe(200);
      expect(small.gateway.caches.keys.size).toBe(2);
      const asked = small.content.count("authenticateApiKey");
      expect((await small.request("/games", { key: third })).status).toBe(200);
      expect(small.content.count("authenticateApiKey")).toBe(asked);
      expect((await small.request("/games", { key: first })).status).toBe(200);
      expect(small.content.count("authenticateApiKey")).toBe(asked + 1);
    } finally {
      await small.stop();
    }
  });

  it("needs no key for /healthz, /readyz, /openapi.json and /docs", async () => {
    for (const path of ["/healthz", "/readyz", "/openapi.json", "/docs"]) expect((await t.request(path)).status).toBe(200);
  });
});
