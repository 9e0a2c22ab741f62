// Serving the web support page's bundle at /support/: the strict CSP and the other security
// headers, compression, caching, the redirect that keeps ?sid=, no path escape, the API routes
// under /support/sessions left alone, a rebuilt bundle picked up, and a clear 503 page when the
// bundle has not been built.
import { mkdtemp, mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../config.ts";
import { startTestGateway, type TestGateway } from "../test-helpers.ts";
import { catalogFileFor, contentSecurityPolicy, jsonForHtml } from "./web-support.ts";

const INDEX = '<!doctype html><html><head><script type="module" src="./assets/index-abc.js"></script></head><body><div id="app"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify("x".repeat(2000))});`;

describe("the web support page at /support/", () => {
  let dir: string;
  let gateway: TestGateway;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "web-support-dist-"));
    await mkdir(join(dir, "assets"));
    await writeFile(join(dir, "index.html"), INDEX);
    await writeFile(join(dir, "assets", "index-abc.js"), SCRIPT);
    await writeFile(join(dir, "assets", "index-abc.css"), "body{margin:0}");
    await writeFile(join(dir, "favicon.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
    gateway = await startTestGateway({ config: { WEB_SUPPORT_DIR: dir, WEB_SUPPORT_CONNECT_SRC: "http://127.0.0.1:4568 https://bucket.example.com" } });
  });
  afterAll(async () => {
    await gateway?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves index.html with a strict Content-Security-Policy and no caching of the page itself", async () => {
    for (const path of ["/support/", "/support/index.html"]) {
      const response = await gateway.request(path);
      expect(response.status).toBe(200);
      expect(response.text).toBe(INDEX);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      const csp = response.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("style-src 'self';");
      expect(csp).toContain("connect-src 'self' http://127.0.0.1:4568 https://bucket.example.com");
      expect(csp).toContain("img-src 'self' blob: http://127.0.0.1:4568 https://bucket.example.com");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe");
    }
  });

  it("serves hashed assets for a year, compressed as the browser accepts", async () => {
    const plain = await fetch(`${gateway.url}/support/assets/index-abc.js`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(SCRIPT);

    // Raw bytes over node:http, so the compressed body is seen as sent.
    const { default: http } = await import("node:http");
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        http.get(`${gateway.url}/support/assets/index-abc.js`, { headers: { "accept-encoding": encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        }).on("error", reject);
      });
    const brotli = await raw("gzip, deflate, br");
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(brotli.body).toString()).toBe(SCRIPT);
    expect(brotli.body.length).toBeLessThan(SCRIPT.length / 10);
    const gzip = await raw("gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(SCRIPT);
  });

  it("serves the page's icon", async () => {
    const response = await gateway.request("/support/favicon.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("answers 404 for a file that is not in the bundle, without leaving its folder", async () => {
    for (const path of ["/support/assets/missing.js", "/support/assets/..%2F..%2Fpackage.json", "/support/assets/..%2Findex.html"]) {
      const response = await gateway.request(path);
      expect(response.status, path).toBe(404);
    }
  });

  it("redirects /support to /support/ keeping the query (the session code)", async () => {
    const response = await gateway.request("/support?sid=abc123", { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/support/?sid=abc123");
  });

  it("leaves /support/sessions and /support/sessions/redirect to the API", async () => {
    const redirect = await gateway.request("/support/sessions/redirect", { redirect: "manual" });
    expect(redirect.headers.get("content-security-policy")).toBeNull();
    expect(redirect.headers.get("content-type")).toContain("application/json");
    const sessions = await gateway.request("/support/sessions", { method: "POST", json: {} });
    expect(sessions.headers.get("content-type")).toContain("application/json");
  });

  it("picks up a rebuilt bundle without a restart", async () => {
    const rebuilt = INDEX.replace("index-abc", "index-def");
    await writeFile(join(dir, "index.html"), rebuilt);
    const later = new Date(Date.now() + 5000);
    await utimes(join(dir, "index.html"), later, later);
    expect((await gateway.request("/support/")).text).toBe(rebuilt);
  });

  it("answers a clear 503 page while the bundle has not been built", async () => {
    const missing = await startTestGateway({ config: { WEB_SUPPORT_DIR: join(dir, "not-built") } });
    try {
      const response = await missing.request("/support/");
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.text).toContain("pnpm run build");
      expect((await missing.request("/support/assets/index-abc.js")).status).toBe(503);
    } finally {
      await missing.stop();
    }
  });

  it("refuses CSP settings that could add directives", () => {
    expect(() => loadGatewayConfig({ WEB_SUPPORT_CONNECT_SRC: "https://a.example; script-src *" })).toThrow(/WEB_SUPPORT_CONNECT_SRC/);
    expect(() => loadGatewayConfig({ WEB_SUPPORT_FRAME_ANCESTORS: "'self', https://x" })).toThrow(/WEB_SUPPORT_FRAME_ANCESTORS/);
    expect(contentSecurityPolicy({ connectSources: [], frameAncestors: "https://game.example" })).toContain("frame-ancestors https://game.example");
  });
});

describe("the session's data in the page", () => {
  const files = (catalogs: string | undefined) =>
    new Map(catalogs === undefined ? [] : [["catalogs.json", { type: "application/json", raw: Buffer.from(catalogs), gzip: Buffer.alloc(0), brotli: Buffer.alloc(0) }]]);

  it("finds the catalog chunk of a language by its tag in any case, else its base language, else none", () => {
    const built = files(JSON.stringify({ es: "assets/es-1.js", "zh-hant": "assets/zh-Hant-2.js", zh: "assets/zh-Hans-3.js", "pt-br": "assets/pt-BR-4.js" }));
    expect(catalogFileFor(built, "es")).toBe("assets/es-1.js");
    expect(catalogFileFor(built, "es-MX")).toBe("assets/es-1.js");
    expect(catalogFileFor(built, "zh-Hant")).toBe("assets/zh-Hant-2.js");
    expect(catalogFileFor(built, "zh")).toBe("assets/zh-Hans-3.js");
    expect(catalogFileFor(built, "pt-BR")).toBe("assets/pt-BR-4.js");
    expect(catalogFileFor(built, "en")).toBeUndefined();
    // A bundle built without the map, or with a broken one, preloads nothing.
    expect(catalogFileFor(files(undefined), "es")).toBeUndefined();
    expect(catalogFileFor(files("{not json"), "es")).toBeUndefined();
  });

  it("writes JSON that no text inside can end or comment out, and that reads back the same", () => {
    const value = { name: "</script><script>alert(1)</script><!-- \u2028\u2029", n: 1 };
    const written = jsonForHtml(value);
    expect(written).not.toMatch(/[<\u2028\u2029]/);
    expect(JSON.parse(written)).toEqual(value);
  });
});
