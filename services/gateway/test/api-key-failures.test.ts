// Failed API key authentications through the real stack: counted per client address in the
// players service's counters, shared by two gateway replicas, answered 429 past the limit in a
// way the OpenAPI document accepts (stack.request checks every answer against it).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./stack.ts";

const LIMIT = 4;
const TIMEOUT_MS = 120_000;

/** Waits until at least `margin` seconds are left in the current minute, so that the failures stay inside one window. */
async function insideOneWindow(margin: number): Promise<void> {
  const secondsLeft = () => 60 - (Date.now() / 1000) % 60;
  await expect.poll(secondsLeft, { timeout: 70_000, interval: 250 }).toBeGreaterThanOrEqual(margin);
}

const unknownKey = () => `psk_${randomUUID().replaceAll("-", "")}${randomUUID().replaceAll("-", "").slice(0, 11)}`;

describe("failed API key authentications through the real stack", () => {
  let stack: Stack;

  beforeAll(async () => {
    // TRUST_PROXY=true, as in the cluster: the client address is the first X-Forwarded-For one.
    stack = await startStack({ gateway: { API_KEY_FAILURES_PER_ADDRESS: LIMIT, API_KEY_FAILURE_WINDOW_SECONDS: 60, TRUST_PROXY: "true" } });
  });
  afterAll(() => stack?.stop());

  it("counts the failures of one address over both replicas and answers 429 past the limit; a key in use and other addresses go on", async () => {
    const tenant = await stack.applyTenant({ company: { name: `Failures ${randomUUID()}`, primaryLanguage: "en" }, apiKeys: [{ name: "main" }] });
    const second = await stack.startGateway();
    await insideOneWindow(15);
    const from = (address: string) => ({ headers: { "x-forwarded-for": address } });
    const key = tenant.apiKeys.main!;
    // The studio's backend behind the same address authenticates on both replicas first.
    expect((await stack.request("/games", { key, ...from("203.0.113.77") })).status).toBe(200);
    expect((await second.request("/games", { key, ...from("203.0.113.77") })).status).toBe(200);

    const replicas = [stack.request, second.request];
    for (let i = 0; i < LIMIT; i++) {
      const refused = await replicas[i % 2]!("/games", { key: unknownKey(), ...from("203.0.113.77") });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: "unauthenticated", message: "A valid API key is required" });
    }
    // The fifth failure, on either replica, is over the shared count.
    const limited = await stack.request("/games", { key: unknownKey(), ...from("203.0.113.77") });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^Too many requests with invalid API keys from this address; retry in \d+ seconds$/) });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await second.request("/tags", { key: unknownKey(), ...from("203.0.113.77") })).status).toBe(429);
    expect((await stack.request("/games", { headers: { "x-forwarded-for": "203.0.113.77", authorization: "Basic dXNlcjpwYXNz" } })).status).toBe(429);

    // The key in use is still served from that address, on both replicas; another address
    // still gets its plain 403.
    expect((await stack.request("/games", { key, ...from("203.0.113.77") })).status).toBe(200);
    expect((await second.request("/tags", { key, ...from("203.0.113.77") })).status).toBe(200);
    expect((await stack.request("/games", { key: unknownKey(), ...from("198.51.100.77") })).status).toBe(403);
  }, TIMEOUT_MS);
});
