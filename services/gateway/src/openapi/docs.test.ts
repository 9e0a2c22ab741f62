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
    const bundle = readFileSync(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js"), "utf8");
    expect(await script.text()).toBe(bundle);
  });
});
