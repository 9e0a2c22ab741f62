// The API reference served by the gateway itself: GET /openapi.json (the document) and
// GET /docs (Redoc rendering it). Everything comes from this server; readers of the docs
// may have no internet access, so the page references no CDN, font or image elsewhere.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Router } from "@koa/router";
import { openapiDocument, openapiJson } from "./openapi.ts";

export const DOCS_PATH = "/docs";
export const OPENAPI_JSON_PATH = "/openapi.json";
export const REDOC_SCRIPT_PATH = "/docs/redoc.standalone.js";

// redoc's standalone bundle carries React and everything else it needs in one browser
// script. Read once at start-up: it is 1 MB and never changes while the process runs.
const redocScript = readFileSync(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js"));
const redocVersion = (createRequire(import.meta.url)("redoc/package.json") as { version: string }).version;

// The script URL carries the redoc version, so it can be cached "forever": an upgrade
// changes the URL the page asks for.
const redocScriptUrl = `${REDOC_SCRIPT_PATH}?v=${encodeURIComponent(redocVersion)}`;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

// Plain system fonts: Redoc's defaults name web fonts the page would have to fetch.
const docsHtml = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(openapiDocument.info.title)} ${escapeHtml(openapiDocument.info.version)}</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="redoc-container"></div>
<noscript>This page needs JavaScript. The raw document is at <a href="${OPENAPI_JSON_PATH}">${OPENAPI_JSON_PATH}</a>.</noscript>
<script src="${redocScriptUrl}"></script>
<script>
  Redoc.init(${JSON.stringify(OPENAPI_JSON_PATH)}, {
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
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Cache-Control", "no-cache");
    ctx.body = docsHtml;
  });
  router.get(REDOC_SCRIPT_PATH, (ctx) => {
    ctx.type = "application/javascript; charset=utf-8";
    ctx.set("Cache-Control", "public, max-age=31536000, immutable");
    ctx.body = redocScript;
  });
}
