import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./test-helpers.ts";

const COMPANY = "22222222-2222-4222-8222-222222222222";
const REQUEST_TIMEOUT_MS = 600;
const CALL_MS = 400;
/** Scheduling slack on a loaded machine: a deadline answer may come this much after the budget. */
const MARGIN_MS = 300;
const ANNOUNCEMENT = { shortContent: { en: "hello" }, longContent: null, gameId: null };

describe("gateway request deadline", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // Each internal call alone is far inside its own timeout (5 s); two in a row are not inside the request's budget.
    t = await startTestGateway({ config: { REQUEST_TIMEOUT_MS, RPC_TIMEOUT_MS: 5000 } });
    // A first request compiles what is compiled on first use (validators), outside the timings below.
    const warm = await t.request("/announcements", { method: "PUT", key: t.content.addKey(COMPANY), json: ANNOUNCEMENT });
    expect(warm.status).toBe(200);
    t.content.delayMs = CALL_MS;
  });
  afterAll(() => t.stop());

  it("answers 504 deadline_exceeded when the second call of a request would outlive the request's budget, within the budget", async () => {
    const key = t.content.addKey(COMPANY); // unknown to the key cache: the request first asks content for it
    const putsBefore = t.content.count("putAnnouncement");
    const startedAt = performance.now();
    const response = await t.request("/announcements", { method: "PUT", key, json: ANNOUNCEMENT });
    const elapsed = performance.now() - startedAt;

    expect(response.status).toBe(504);
    expect(response.body).toEqual({ code: "deadline_exceeded", message: expect.any(String) });
    // The key check took its time, then the write was started with what was left and ended with the budget.
    expect(t.content.count("putAnnouncement")).toBe(putsBefore + 1);
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + MARGIN_MS);
  });

  it("gives every request its own budget: one call that fits answers as usual", async () => {
    const key = t.content.addKey(COMPANY);
    t.content.delayMs = 0;
    expect((await t.request("/games", { key })).status).toBe(200); // the key is cached now
    t.content.delayMs = CALL_MS;
    t.gateway.caches.reference.clear();
    const response = await t.request("/games", { key });
    expect(response.status).toBe(200);
  });
});
