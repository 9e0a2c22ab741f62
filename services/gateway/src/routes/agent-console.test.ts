// Serving the support application's bundle at /app/: every page path answers index.html (so a
// ticket's url or a link opens the console), assets and the icon are files, the strict CSP
// (with data: images for the two-factor QR code and nothing unsafe), no path escape, the API
// under /agent-api left alone, and a clear 503 page when the bundle has not been built.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../test-helpers.ts";

const INDEX = '<!doctype html><html><head><script type="module" src="/app/assets/index-abc.js"></script></head><body><div id="app"></div></body></html>';
const SCRIPT = "console.log('console');";

describe("the support application at /app/", () => {
  let dir: string;
  let gateway: TestGateway;
  let unbuilt: TestGateway;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agent-console-dist-"));
    await mkdir(join(dir, "assets"));
    await writeFile(join(dir, "index.html"), INDEX);
    await writeFile(join(dir, "assets", "index-abc.js"), SCRIPT);
    await writeFile(join(dir, "favicon.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    gateway = await startTestGateway({ config: { AGENT_CONSOLE_DIR: dir, WEB_SUPPORT_CONNECT_SRC: "https://bucket.example.com" } });
    unbuilt = await startTestGateway({ config: { AGENT_CONSOLE_DIR: join(dir, "missing") } });
  });
  afterAll(async () => {
    await gateway?.stop();
    await unbuilt?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers every page path with index.html under a strict Content-Security-Policy", async () => {
    for (const path of ["/app/", "/app/sign-in", "/app/tickets/5b0f3a52-8d2e-4a51-9d8e-2f1f4f7c3e11", "/app/welcome", "/app/a/b/c"]) {
      const response = await gateway.request(path);
      expect(response.status, path).toBe(200);
      expect(response.text).toBe(INDEX);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      const csp = response.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("img-src 'self' data: blob: https://bucket.example.com;");
      expect(csp).toContain("connect-src 'self' https://bucket.example.com;");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("serves the assets and the icon as files, and no file outside the bundle", async () => {
    const script = await gateway.request("/app/assets/index-abc.js");
    expect(script.status).toBe(200);
    expect(script.text).toBe(SCRIPT);
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await gateway.request("/app/favicon.svg")).headers.get("content-type")).toBe("image/svg+xml");
    expect((await gateway.request("/app/assets/missing.js")).status).toBe(404);
    expect((await gateway.request("/app/assets/..%2f..%2findex.html")).status).toBe(404);
  });

  it("redirects /app to /app/ keeping the query", async () => {
    const response = await fetch(`${gateway.url}/app?next=%2Faccount`, { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/app/?next=%2Faccount");
  });

  it("leaves /agent-api to the API", async () => {
    const response = await gateway.request("/agent-api/me");
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: "unauthenticated" });
  });

  it("answers 503 with a page saying how to build it when the bundle is missing", async () => {
    const response = await unbuilt.request("/app/sign-in");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("30");
    expect(response.text).toContain("pnpm --filter @support/agent-console build");
  });
});
