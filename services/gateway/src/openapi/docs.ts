// The API reference served by the gateway itself: GET /openapi.json (the document) and
// GET /docs (Redoc rendering it). Everything comes from this server; readers of the docs
// may have no internet access, so the page references no CDN, font or image elsewhere, and
// its Content-Security-Policy lets it load nothing from anywhere else either.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Router } from "@koa/router";
import { openapiDocument, openapiJson } from "./openapi.ts";

export const DOCS_PATH = "/docs";
export const OPENAPI_JSON_PATH = "/openapi.json";
export const REDOC_SCRIPT_PATH = "/docs/redoc.standalone.js";

/**
 * The one image Redoc's bundle loads from elsewhere: the logo beside "API docs by Redocly"
 * at the foot of its menu, fetched from Redocly's CDN. The element is removed from the bundle
 * served here (the link text stays); the page's CSP would block the request anyway.
 */
const THIRD_PARTY_LOGO = /\w+\.createElement\("img",\{alt:"redocly logo",onError:\(\)=>\w+\(!1\),src:"https:\/\/cdn\.redoc\.ly\/[^"]*"\}\)/g;

/**
 * The nonce the bundle puts on the <style> elements it inserts (webpack's `__webpack_nonce__`,
 * which the bundle starts out empty, so that the styles it inserts while loading, before
 * Redoc.init hands it the nonce, would be refused): taken from the <script> element that
 * loads the bundle, which carries the page's nonce.
 */
const UNSET_STYLE_NONCE = /\b(\w+)\.nc=void 0/;
const STYLE_NONCE_FROM_SCRIPT = "$1.nc=document.currentScript&&document.currentScript.nonce||void 0";

// redoc's standalone bundle carries React and everything else it needs in one browser
// script. Read once at start-up: it is 1 MB and never changes while the process runs.
const redocScript = Buffer.from(
  readFileSync(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js"), "utf8")
    .replace(THIRD_PARTY_LOGO, "null")
    .replace(UNSET_STYLE_NONCE, STYLE_NONCE_FROM_SCRIPT),
);

// The script URL carries a hash of what is served, so it can be cached "forever": an upgrade
// of redoc, or a change to what is removed from it, changes the URL the page asks for.
const redocScriptUrl = `${REDOC_SCRIPT_PATH}?v=${createHash("sha256").update(redocScript).digest("hex").slice(0, 16)}`;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * The page's policy: scripts, styles, images and requests from this origin only, plus the
 * inline script and style of this one answer by their nonce (a new one per answer). Redoc
 * hands the nonce to the styles it inserts at run time; its icons are data: images in its
 * styles (no request); its search index runs in a worker it builds from a blob. No plugins,
 * no frames, no forms, no <base>.
 */
export function docsContentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "worker-src blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

// Plain system fonts: Redoc's defaults name web fonts the page would have to fetch.
const docsHtml = (nonce: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(openapiDocument.info.title)} ${escapeHtml(openapiDocument.info.version)}</title>
<style nonce="${nonce}">body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="redoc-container"></div>
<noscript>This page needs JavaScript. The raw document is at <a href="${OPENAPI_JSON_PATH}">${OPENAPI_JSON_PATH}</a>.</noscript>
<script src="${redocScriptUrl}" nonce="${nonce}"></script>
<script nonce="${nonce}">
  Redoc.init(${JSON.stringify(OPENAPI_JSON_PATH)}, {
    nonce: ${JSON.stringify(nonce)},
    hideDownloadButton: false,
    expandResponses: "200",
    jsonSampleExpandLevel: 3,
    theme: { typography: {
      fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
      headings: { fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif" },
      code: { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" }
    } }
  }, document.getElementById("redoc-container"));
</script>
</body>
</html>
`;

/**
 * Registers GET /openapi.json, GET /docs and the Redoc script on a router. These routes are
 * public: mount them before (or outside) the API key check.
 */
export function registerDocsRoutes<StateT, ContextT>(router: Router<StateT, ContextT>): void {
  router.get(OPENAPI_JSON_PATH, (ctx) => {
    ctx.type = "application/json";
    ctx.set("Cache-Control", "no-cache");
    ctx.body = openapiJson;
  });
  router.get(DOCS_PATH, (ctx) => {
    const nonce = randomBytes(16).toString("base64");
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Content-Security-Policy", docsContentSecurityPolicy(nonce));
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "no-referrer");
    // A page that carries a nonce is never stored: a stored copy would reuse it.
    ctx.set("Cache-Control", "no-store");
    ctx.body = docsHtml(nonce);
  });
  router.get(REDOC_SCRIPT_PATH, (ctx) => {
    ctx.type = "application/javascript; charset=utf-8";
    ctx.set("Cache-Control", "public, max-age=31536000, immutable");
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.body = redocScript;
  });
}
