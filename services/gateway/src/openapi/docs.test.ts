// The docs routes serve the document and a page that works without internet access.
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { Router } from "@koa/router";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerDocsRoutes } from "./docs.ts";
import { openapiDocument } from "./openapi.ts";

describe("docs routes", () => {
  let server: ReturnType<Koa["listen"]>;
  let base: string;

  beforeAll(async () => {
    const app = new Koa();
    const router = new Router();
    registerDocsRoutes(router);
    app.use(router.routes());
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  it("serves the document as JSON at /openapi.json", async () => {
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(openapiDocument);
  });

  it("serves a page that loads Redoc from this server and points it at /openapi.json", async () => {
    const response = await fetch(`${base}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(`Redoc.init("/openapi.json"`);
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    // Offline readers: nothing on the page may come from another host.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/https?:\/\//);

    const script = await fetch(new URL(scripts[0]!, base));
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(script.headers.get("cache-control")).toMatch(/max-age=\d{6,}/);
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    const served = await script.text();
    // Redoc's bundle itself, less its third-party logo, with the page's nonce for its styles.
    const bundle = readFileSync(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js"), "utf8");
    expect(bundle).toContain("https://cdn.redoc.ly/");
    expect(served).not.toContain("cdn.redoc.ly");
    expect(served).not.toMatch(/\bsrc:"https?:/);
    expect(served).toContain(".nc=document.currentScript&&document.currentScript.nonce||void 0");
    expect(served).not.toMatch(/\b\w+\.nc=void 0/);
    expect(served.length).toBeGreaterThan(bundle.length * 0.99);
  });

  it("gives the page a strict Content-Security-Policy: this origin only, inline code by a nonce new on every answer", async () => {
    const policyOf = async () => {
      const response = await fetch(`${base}/docs`);
      const html = await response.text();
      const policy = response.headers.get("content-security-policy") ?? "";
      return { response, html, policy, directives: new Map(policy.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values])) };
    };
    const { response, html, policy, directives } = await policyOf();
    expect(directives.get("default-src")).toEqual(["'none'"]);
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(directives.get("script-src")).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(directives.get("style-src")).toEqual(["'self'", `'nonce-${nonce}'`]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    expect(directives.get("img-src")).toEqual(["'self'", "data:"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("base-uri")).toEqual(["'none'"]);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    // Every inline script and style, and the bundle's script element, carries this answer's nonce.
    const tags = [...html.matchAll(/<(script|style)\b([^>]*)>/g)];
    expect(tags.length).toBe(3);
    for (const [tag, , attributes] of tags) expect(attributes, tag).toContain(`nonce="${nonce}"`);
    expect(html).toContain(`nonce: ${JSON.stringify(nonce)}`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect((await policyOf()).policy).not.toContain(nonce);
  });
});
