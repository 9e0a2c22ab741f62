// API key authentication (one 403 `unauthenticated` for every kind of bad key) and the error
// body rules ({code, message, details?}, request ids, 404/405/413) through the real stack.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../src/openapi/operations.ts";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

const FORBIDDEN = { code: "unauthenticated", message: "A valid API key is required" };
const SOME_UUID = "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11";

/** A concrete request path for an operation's path template. */
const concretePath = (template: string) => template.replace("{gameId}", SOME_UUID).replace("{ticketId}", SOME_UUID).replace("{attachmentId}", "att_1").replace("{webhookId}", SOME_UUID).replace("{deliveryId}", SOME_UUID);

describe("authentication and errors through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let revokedKey: string;

  beforeAll(async () => {
    // A long key TTL: revocation must come from content's event, not from expiry. Every bad
    // credential below comes from this one address, 75 within seconds: the failures are still
    // counted, but far from their limit, so each is answered with its 403.
    stack = await startStack({ gateway: { API_KEY_CACHE_TTL_MS: 600_000, API_KEY_FAILURES_PER_ADDRESS: 1_000_000 } });
    a = await stack.applyTenant(tenantA);
    const created = await stack.admin<{ apiKeyId: string; secret: string }>(["api-keys", "create", "--company", a.companyId, "--name", "to-revoke"]);
    await stack.admin(["api-keys", "revoke", created.apiKeyId]);
    revokedKey = created.secret;
  });
  afterAll(() => stack?.stop());

  const authenticated = [...operations.values()].filter((op) => op.authenticated);

  it("has 25 authenticated operations", () => {
    expect(authenticated).toHaveLength(25);
  });

  describe.each([
    ["no Authorization header", undefined as string | undefined, undefined as string | undefined],
    ["another scheme", undefined, "Basic dXNlcjpwYXNzd29yZA=="],
    ["an unknown key", "sk_live_0000000000000000000000000000000000000000", undefined],
    ["a revoked key", "revoked", undefined],
  ])("with %s", (_label, key, authorization) => {
    it.each(authenticated.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))("%s answers the same 403", async (_name, op) => {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const response = await stack.request(concretePath(op.path), {
        method: op.method.toUpperCase(),
        key: key === "revoked" ? revokedKey : key,
        headers,
        json: op.requestBody ? {} : undefined,
      });
      expect(response.status).toBe(403);
      expect(response.body).toEqual(FORBIDDEN);
    });
  });

  it("refuses a key within moments of its revocation (content's event), despite a long cache TTL", async () => {
    const created = await stack.admin<{ apiKeyId: string; secret: string }>(["api-keys", "create", "--company", a.companyId, "--name", "short-lived"]);
    expect((await stack.request("/games", { key: created.secret })).status).toBe(200);
    await stack.admin(["api-keys", "revoke", created.apiKeyId]);
    await eventually(async () => (await stack.request("/games", { key: created.secret })).status === 403, 5000);
    expect((await stack.request("/games", { key: a.apiKeys.main })).status).toBe(200);
  });

  it("answers malformed JSON with 400 invalid_argument", async () => {
    const response = await stack.request("/announcements", { method: "PUT", key: a.apiKeys.main, body: "{not json", headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("Malformed JSON") });
  });

  it("answers a body over 1 MiB with 413 payload_too_large", async () => {
    const prefix = '{"shortContent":{"en":"';
    const suffix = '"},"longContent":null,"gameId":null}';
    const body = prefix + "x".repeat(1024 * 1024 + 1 - prefix.length - suffix.length) + suffix;
    expect(Buffer.byteLength(body)).toBe(1024 * 1024 + 1);
    const response = await stack.request("/announcements", { method: "PUT", key: a.apiKeys.main, body, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: "payload_too_large" });
  });

  it("answers a body that is not JSON with 400", async () => {
    const response = await stack.request("/announcements", { method: "PUT", key: a.apiKeys.main, body: "hello", headers: { "content-type": "text/plain" } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument" });
  });

  it("answers an unknown route with 404 not_found", async () => {
    for (const path of ["/", "/v1/games", "/announcements/a/b", "/gamez"]) {
      const response = await stack.request(path, { key: a.apiKeys.main });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: "not_found" });
    }
  });

  it("answers a wrong method on a known route with 405, Allow and a {code, message} body", async () => {
    const response = await stack.request("/games", { method: "DELETE", key: a.apiKeys.main });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("HEAD, GET");
    expect(response.body).toMatchObject({ code: "method_not_allowed" });
    const tickets = await stack.request("/tickets", { method: "PATCH" });
    expect(tickets.status).toBe(405);
    expect(tickets.headers.get("allow")).toBe("HEAD, GET, POST");
  });

  it("echoes x-request-id when given and generates one otherwise, on success and error", async () => {
    const given = await stack.request("/games", { key: a.apiKeys.main, headers: { "x-request-id": "trace-123" } });
    expect(given.headers.get("x-request-id")).toBe("trace-123");
    const forbidden = await stack.request("/games", { headers: { "x-request-id": "trace-403" } });
    expect(forbidden.headers.get("x-request-id")).toBe("trace-403");
    const generated = await stack.request("/nope");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("is tenant-isolated for writes: another company's game id is 404", async () => {
    const other = await stack.applyTenant({ company: { name: "Other" }, apiKeys: [{ name: "k" }] });
    const response = await stack.request("/announcements", { method: "PUT", key: other.apiKeys.k, json: { shortContent: { en: "x" }, longContent: null, gameId: a.games.galaxy!.id } });
    expect(response.status).toBe(404);
    expect((await stack.request(`/announcements/${a.games.galaxy!.id}`, { method: "DELETE", key: other.apiKeys.k })).status).toBe(404);
  });
});
