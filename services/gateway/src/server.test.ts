import net from "node:net";
import { gzipSync } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { operations } from "./openapi/operations.ts";
import { startTestGateway, type TestGateway } from "./test-helpers.ts";

const COMPANY = "11111111-1111-4111-8111-111111111111";

describe("gateway edge: error bodies, request ids and unknown routes", () => {
  let t: TestGateway;
  let key: string;

  beforeAll(async () => {
    t = await startTestGateway();
    key = t.content.addKey(COMPANY);
  });
  afterAll(() => t.stop());
  beforeEach(() => {
    t.content.failure = undefined;
    t.gateway.caches.reference.clear();
  });

  it("answers an unknown route with 404 not_found", async () => {
    const response = await t.request("/nope", { key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: "not_found", message: "No route for GET /nope" });
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("answers an unknown route with 404 even without an API key", async () => {
    expect((await t.request("/announcements/x/y")).status).toBe(404);
  });

  it("treats a trailing slash as another path: DELETE /announcements/ does not clear the shared announcement", async () => {
    const response = await t.request("/announcements/", { method: "DELETE", key });
    expect(response.status).toBe(404);
    expect(t.content.count("deleteAnnouncement")).toBe(0);
  });

  it("answers a request Node cannot parse with a JSON 400", async () => {
    const { port } = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write("GARBAGE / HTTP/1.1\r\nHost: x\r\n\r\n"));
      let data = "";
      socket.on("data", (chunk) => (data += chunk.toString("utf8")));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(JSON.parse(raw.split("\r\n\r\n")[1]!)).toEqual({ code: "invalid_argument", message: "Malformed HTTP request" });
  });

  it("answers a wrong method on a known route with 405, an Allow header and a {code, message} body", async () => {
    const response = await t.request("/games", { method: "POST", key });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("HEAD, GET");
    expect(response.body).toEqual({ code: "method_not_allowed", message: "POST is not allowed on /games; allowed: HEAD, GET" });
    const announcement = await t.request(`/announcements/${COMPANY}`, { method: "PUT", key });
    expect(announcement.status).toBe(405);
    expect(announcement.headers.get("allow")).toBe("DELETE");
  });

  it("answers OPTIONS on a known route with 204 and Allow", async () => {
    const response = await t.request("/announcements", { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("HEAD, GET, PUT, DELETE");
  });

  it("refuses malformed JSON with 400 invalid_argument and a clear message", async () => {
    const response = await t.request("/announcements", { method: "PUT", key, body: '{"shortContent": ', headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^Malformed JSON in the request body/) });
    expect(t.content.count("putAnnouncement")).toBe(0);
  });

  it("refuses a body of 1 MiB + 1 byte with 413 payload_too_large", async () => {
    const filler = "x".repeat(1024 * 1024 + 1 - '{"shortContent":{"en":""},"longContent":null,"gameId":null}'.length);
    const body = `{"shortContent":{"en":"${filler}"},"longContent":null,"gameId":null}`;
    expect(Buffer.byteLength(body)).toBe(1024 * 1024 + 1);
    const response = await t.request("/announcements", { method: "PUT", key, body, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ code: "payload_too_large", message: "The request body is larger than 1048576 bytes" });
  });

  it("accepts a body of exactly 1 MiB", async () => {
    const filler = "x".repeat(1024 * 1024 - '{"shortContent":{"en":""},"longContent":null,"gameId":null}'.length);
    const body = `{"shortContent":{"en":"${filler}"},"longContent":null,"gameId":null}`;
    const response = await t.request("/announcements", { method: "PUT", key, body, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(200);
  });

  it("refuses a body whose bytes are not what its Content-Encoding says with 400 invalid_argument", async () => {
    const valid = gzipSync('{"shortContent":{"en":"x"}}');
    const calls = t.content.count("putAnnouncement");
    for (const [encoding, body] of [["gzip", Buffer.from("not gzip at all")], ["deflate", Buffer.from("not deflate")], ["gzip", valid.subarray(0, 10)], ["br", Buffer.from("xx")], ["br", Buffer.from("{\"plain\": \"json\"}")]] as const) {
      const response = await t.request("/announcements", { method: "PUT", key, body, headers: { "content-type": "application/json", "content-encoding": encoding } });
      expect(response.status, encoding).toBe(400);
      expect(response.body).toEqual({ code: "invalid_argument", message: `The request body is not valid ${encoding} data` });
    }
    expect(t.content.count("putAnnouncement")).toBe(calls);
  });

  it("refuses a Content-Encoding it cannot decode with 415 unsupported_media_type, and reads a gzip body", async () => {
    const response = await t.request("/announcements", { method: "PUT", key, body: "xx", headers: { "content-type": "application/json", "content-encoding": "foo" } });
    expect(response.status).toBe(415);
    expect(response.body).toEqual({ code: "unsupported_media_type", message: expect.stringContaining("Content-Encoding") });
    const gzipped = await t.request("/announcements", {
      method: "PUT", key, body: gzipSync('{"shortContent":{"en":"zipped"},"longContent":null,"gameId":null}'),
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expect(gzipped.status).toBe(200);
  });

  it("refuses a body that is not declared as JSON with 400", async () => {
    const response = await t.request("/announcements", { method: "PUT", key, body: "shortContent=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: "invalid_argument", message: "The request body must be JSON, sent with Content-Type: application/json" });
  });

  it("refuses a missing body of a body operation with a validation error", async () => {
    const response = await t.request("/announcements", { method: "PUT", key });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
  });

  it("echoes an acceptable x-request-id and generates one otherwise, on every response", async () => {
    const given = await t.request("/games", { key, headers: { "x-request-id": "client-id-42" } });
    expect(given.headers.get("x-request-id")).toBe("client-id-42");
    const generated = await t.request("/games", { key });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const unacceptable = await t.request("/games", { key, headers: { "x-request-id": "bad id\twith spaces" } });
    expect(unacceptable.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    for (const path of ["/nope", "/games"]) {
      const error = await t.request(path, { headers: { "x-request-id": "err-1" } });
      expect(error.status).toBeGreaterThanOrEqual(400);
      expect(error.headers.get("x-request-id")).toBe("err-1");
    }
  });

  it("writes one access log line per request, without the query string", async () => {
    await t.request("/games?email=player@example.com", { key, headers: { "x-request-id": "log-1" } });
    const line = t.lines.find((l) => l.msg === "request" && l.requestId === "log-1");
    expect(line).toMatchObject({ method: "GET", path: "/games", status: 200 });
    expect(typeof line?.ms).toBe("number");
    expect(JSON.stringify(t.lines)).not.toContain("player@example.com");
  });

  it("answers an internal failure with 500 internal, never its message or stack, and logs the stack", async () => {
    t.content.failure = new Error("connect ECONNREFUSED 10.0.0.7:5432 at Pool.connect (/srv/app/db.ts:12)");
    const response = await t.request("/tags", { key, headers: { "x-request-id": "boom-1" } });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: "internal", message: "Internal error" });
    expect(response.text).not.toMatch(/10\.0\.0\.7|db\.ts|ECONNREFUSED/);
  });

  it("logs a failure of the gateway itself with its stack and answers a bare 500", async () => {
    t.content.addGame(COMPANY, "Broken");
    t.content.omitTimestamps = true;
    try {
      const response = await t.request("/games", { key, headers: { "x-request-id": "stack-1" } });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ code: "internal", message: "Internal error" });
      const logged = t.lines.find((l) => l.msg === "request failed" && l.requestId === "stack-1") as { err?: { stack?: string; message?: string } } | undefined;
      expect(logged?.err?.message).toBe("content returned no game createdAt");
      expect(logged?.err?.stack).toContain("isoTimestamp");
    } finally {
      t.content.omitTimestamps = false;
    }
  });

  it("answers a dependency outage with 503 unavailable and Retry-After", async () => {
    t.content.failure = new ConnectError("connect ECONNREFUSED 10.0.0.8:50051", Code.Unavailable);
    const response = await t.request("/games", { key });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.body).toEqual({ code: "unavailable", message: "A dependency is unavailable, try again later" });
    expect(response.text).not.toContain("10.0.0.8");
  });

  it("answers a connection reset mid-call with 503, not 409, without the socket's text", async () => {
    t.content.failure = new ConnectError("read ECONNRESET", Code.Aborted);
    const response = await t.request("/games", { key });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.body).toMatchObject({ code: "unavailable" });
    expect(response.text).not.toContain("ECONNRESET");
  });

  it("answers a dependency timeout with 504 deadline_exceeded", async () => {
    t.content.failure = new ConnectError("deadline exceeded", Code.DeadlineExceeded);
    const response = await t.request("/fields", { key });
    expect(response.status).toBe(504);
    expect(response.body).toMatchObject({ code: "deadline_exceeded" });
  });
});

describe("routes of the document", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.stop());

  it("serves every operation: none is an unknown route or method", async () => {
    for (const operation of operations.values()) {
      const path = operation.path.replace(/\{[^}]+\}/g, "6d1f8a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
      const response = await t.request(path, { method: operation.method.toUpperCase() });
      // Without credentials or a body each one is refused (400, 403), but by its own route.
      expect([404, 405], `${operation.method.toUpperCase()} ${operation.path}`).not.toContain(response.status);
    }
  });
});

describe("GET /healthz, /readyz and /healthz/dependencies", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.stop());

  it("answers liveness and readiness 200 from the gateway's own state", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const response = await t.request(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ok" });
    }
  });

  it("reports every service on /healthz/dependencies", async () => {
    const response = await t.request("/healthz/dependencies");
    expect(response.status).toBe(200);
    const up = { status: "ok", breaker: "unknown", addresses: { known: 0, ejected: 0 } };
    expect(response.body).toEqual({ status: "ok", services: { content: up, tickets: up, media: up, players: up, webhooks: up, email: up } });
  });

  it("stays ready when a service is down, and reports it on /healthz/dependencies without addresses", async () => {
    t.down.add("tickets");
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the result is cached for a second
    expect((await t.request("/readyz")).status).toBe(200);
    const response = await t.request("/healthz/dependencies");
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      code: "unavailable",
      message: "Unavailable: tickets",
      status: "degraded",
      services: { content: { status: "ok" }, tickets: { status: "unavailable" }, media: { status: "ok" }, players: { status: "ok" }, webhooks: { status: "ok" } },
    });
    expect(response.text).not.toContain("10.1.2.3");
    t.down.clear();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await t.request("/healthz/dependencies")).status).toBe(200);
  });

  it("needs no API key for /openapi.json and /docs", async () => {
    const doc = await t.request("/openapi.json");
    expect(doc.status).toBe(200);
    expect((doc.body as { openapi: string }).openapi).toBe("3.1.0");
    expect((await t.request("/docs")).status).toBe(200);
  });
});
