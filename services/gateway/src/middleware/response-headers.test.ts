// Every answer of the gateway carries `X-Content-Type-Options: nosniff`; API answers, errors
// included, carry `Cache-Control: no-store`, and only routes of non-personal data keep a
// caching of their own (the docs, the web support page's files).
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../test-helpers.ts";

const COMPANY = "dddddddd-0000-4000-8000-000000000001";

describe("response headers", () => {
  let t: TestGateway;
  let key: string;

  beforeAll(async () => {
    t = await startTestGateway();
    key = t.content.addKey(COMPANY);
    t.content.addGame(COMPANY, "Alpha");
  });
  afterAll(() => t.stop());

  it("marks API answers no-store and nosniff: reference reads, errors of every kind", async () => {
    const answers = {
      "GET /games": await t.request("/games", { key }),
      "GET /tags": await t.request("/tags", { key }),
      "GET /announcements": await t.request("/announcements", { key }),
      "403 without a key": await t.request("/games"),
      "400 invalid query": await t.request("/tickets?limit=-1", { key }),
      "404 unknown route": await t.request("/nothing-here"),
      "405 wrong method": await t.request("/games", { method: "DELETE", key }),
      "a service's failure": await t.request("/tickets", { key }),
    };
    expect(answers["GET /games"].status).toBe(200);
    expect(answers["403 without a key"].status).toBe(403);
    expect(answers["405 wrong method"].status).toBe(405);
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.headers.get("x-content-type-options"), name).toBe("nosniff");
      expect(answer.headers.get("cache-control"), name).toBe("no-store");
    }
  });

  it("keeps the caching of what is not personal, and nosniff on it too", async () => {
    const spec = await t.request("/openapi.json");
    expect(spec.headers.get("cache-control")).toBe("no-cache");
    const docs = await t.request("/docs");
    expect(docs.headers.get("cache-control")).toBe("no-store");
    const script = /<script src="([^"]+)"/.exec(docs.text)![1]!;
    const bundle = await fetch(t.url + script);
    expect(bundle.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    await bundle.arrayBuffer();
    for (const answer of [spec, docs, bundle]) expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    // The web support page (served, or 503 while it is not built).
    const page = await t.request("/support/");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("cache-control")).toMatch(/^(no-cache|no-store)$/);
    const health = await t.request("/healthz");
    expect(health.headers.get("x-content-type-options")).toBe("nosniff");
    expect(health.headers.get("cache-control")).toBe("no-store");
  });

  it("marks the answer to a request Node cannot parse too", async () => {
    const { port } = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write("GET /games HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/);
    expect(raw).toMatch(/\r\nCache-Control: no-store\r\n/);
  });
});
