// Retries and idempotency keys, against a local HTTP server that answers from a script.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { freePort } from "@support/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSupportClient, parseRetryAfter, retryAfterWithJitter, withoutIdempotencyKey, type components, type RetryEvent, type SupportClientOptions } from "../src/index.ts";

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const ok = { status: 200, body: { success: true } };
const ticketBody: components["schemas"]["CreateTicketRequest"] = {
  gameId: "6f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11",
  message: "My ship is gone",
  language: "en",
  channels: ["email"],
  metadata: { player: { id: "p-1", email: "p1@example.com" } },
};

describe("retries and idempotency keys", () => {
  let server: Server;
  let baseUrl: string;
  let script: Scripted[] = [];
  let received: Received[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
        const next = script.shift() ?? { status: 500, body: { code: "internal", message: "script exhausted" } };
        res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
        res.end(JSON.stringify(next.body ?? { code: "unavailable", message: "try later" }));
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${port}`;
  });
  afterEach(() => {
    script = [];
    received = [];
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (options: Partial<SupportClientOptions> = {}) => createSupportClient({ baseUrl, apiKey: "psk_test", ...options });

  it.each([503, 429])("retries a GET answered %i with Retry-After: 1 once, after waiting that second and a random part of another", async (status) => {
    script = [{ status, headers: { "retry-after": "1" } }, { status: 200, body: { games: [] } }];
    const retries: RetryEvent[] = [];
    const { data, response } = await client({ retry: { onRetry: (event) => retries.push(event) } }).GET("/games");
    expect(response.status).toBe(200);
    expect(data).toEqual({ games: [] });
    expect(received.map((request) => request.method)).toEqual(["GET", "GET"]);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, status, fromRetryAfter: true, method: "GET" })]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(2000);
    // The second request came no sooner than the server asked (timers may fire a hair early).
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it("gives up after maxAttempts and returns the last answer", async () => {
    script = [{ status: 503 }, { status: 503 }, { status: 503 }, ok];
    const retries: RetryEvent[] = [];
    const { error, response } = await client({ retry: { maxAttempts: 3, baseDelayMs: 5, onRetry: (event) => retries.push(event) } }).GET("/games");
    expect(response.status).toBe(503);
    expect(error).toEqual({ code: "unavailable", message: "try later" });
    expect(received).toHaveLength(3);
    // No Retry-After: jittered backoff within base·2^(n-1).
    expect(retries.map((event) => event.fromRetryAfter)).toEqual([false, false]);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(5);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(10);
  });

  it("stops waiting when the call is aborted", async () => {
    script = [{ status: 503, headers: { "retry-after": "20" } }, ok];
    const controller = new AbortController();
    const call = client({ retry: { onRetry: () => controller.abort(new Error("gave up")) } }).GET("/games", { signal: controller.signal });
    await expect(call).rejects.toThrow("gave up");
    expect(received).toHaveLength(1);
  });

  it("does not wait for a Retry-After longer than maxDelayMs", async () => {
    script = [{ status: 429, headers: { "retry-after": "120" } }, ok];
    const { response } = await client({ retry: { maxDelayMs: 10_000 } }).GET("/games");
    expect(response.status).toBe(429);
    expect(received).toHaveLength(1);
  });

  it("does not retry other statuses", async () => {
    script = [{ status: 500, body: { code: "internal", message: "boom" } }, ok];
    const { response } = await client().GET("/games");
    expect(response.status).toBe(500);
    expect(received).toHaveLength(1);
  });

  it("sends an Idempotency-Key with every POST and DELETE, the same one on a retry", async () => {
    script = [{ status: 503, headers: { "retry-after": "0" } }, { status: 200, body: { ticketId: ticketBody.gameId, runningId: 1 } }, ok];
    const api = client();
    const { data } = await api.POST("/tickets", { body: ticketBody });
    expect(data?.runningId).toBe(1);
    await api.DELETE("/announcements/{gameId}", { params: { path: { gameId: ticketBody.gameId } } });
    expect(received.map((request) => request.method)).toEqual(["POST", "POST", "DELETE"]);
    const keys = received.map((request) => request.headers["idempotency-key"]);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(JSON.parse(received[1]!.body)).toEqual(ticketBody);
    expect(received[0]!.headers.authorization).toBe("Bearer psk_test");
  });

  it("keeps an Idempotency-Key given by the call", async () => {
    script = [ok];
    await client().POST("/tickets", { body: ticketBody, headers: { "Idempotency-Key": "order-42" } });
    expect(received[0]!.headers["idempotency-key"]).toBe("order-42");
  });

  it("does not retry a POST that opted out of the Idempotency-Key", async () => {
    script = [{ status: 503, headers: { "retry-after": "0" } }, ok];
    const { response } = await client().POST("/tickets", { body: ticketBody, middleware: [withoutIdempotencyKey] });
    expect(response.status).toBe(503);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers["idempotency-key"]).toBeUndefined();
  });

  it("does not retry a POST of a client made without idempotency keys", async () => {
    script = [{ status: 429, headers: { "retry-after": "0" } }, ok];
    const { response } = await client({ idempotencyKeys: false }).POST("/tickets", { body: ticketBody });
    expect(response.status).toBe(429);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers["idempotency-key"]).toBeUndefined();
  });

  it("does not retry when retries are off", async () => {
    script = [{ status: 503, headers: { "retry-after": "0" } }, ok];
    const { response } = await client({ retry: false }).GET("/games");
    expect(response.status).toBe(503);
    expect(received).toHaveLength(1);
  });

  it("spreads the waits of clients refused together over the second after Retry-After, never more than Retry-After again", () => {
    expect(retryAfterWithJitter(1000, () => 0)).toBe(1000);
    expect(retryAfterWithJitter(1000, () => 0.999)).toBe(1999);
    expect(retryAfterWithJitter(200, () => 0.999)).toBe(400);
    expect(retryAfterWithJitter(30_000, () => 0.5)).toBe(30_500);
    expect(retryAfterWithJitter(0, () => 0.7)).toBe(0);
    // 500 clients refused at once come back spread over the second: no tenth of it takes more than a fifth of them.
    const waits = Array.from({ length: 500 }, () => retryAfterWithJitter(1000));
    const tenths = Array.from({ length: 10 }, (_, i) => waits.filter((ms) => ms >= 1000 + i * 100 && ms < 1100 + i * 100).length);
    expect(Math.max(...tenths)).toBeLessThan(100);
    expect(waits.every((ms) => ms >= 1000 && ms <= 2000)).toBe(true);
  });

  it("cuts a wait with its random part to maxDelayMs", async () => {
    script = [{ status: 503, headers: { "retry-after": "1" } }, ok];
    const retries: RetryEvent[] = [];
    const { response } = await client({ retry: { maxDelayMs: 1000, onRetry: (event) => retries.push(event) } }).GET("/games");
    expect(response.status).toBe(200);
    expect(retries.map((event) => event.delayMs)).toEqual([1000]);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
