// Serves the web support page (the static bundle of apps/web-support) at /support/ with a strict
// Content-Security-Policy. Only /support/, /support/index.html, /support/favicon.svg and
// /support/assets/<file> are answered here, so /support/sessions and /support/sessions/redirect stay the API's.
import { fileURLToPath } from "node:url";
import type { GatewayConfig } from "../config.ts";
import type { GatewayRouter } from "../types.ts";
import { staticBundle } from "./static-bundle.ts";

/** The bundle in the repository, built by `pnpm run build` (turbo's build task). */
export const DEFAULT_WEB_SUPPORT_DIR = fileURLToPath(new URL("../../../../apps/web-support/dist/", import.meta.url));

export interface WebSupportOptions {
  /** Folder of the built bundle (index.html and assets/). */
  dir: string;
  /** Extra sources for connect-src (the storage endpoint of the pre-signed uploads and downloads). */
  connectSources: string[];
  /** Value of the CSP frame-ancestors directive (who may show the page in a frame). */
  frameAncestors: string;
}

export function webSupportOptions(config: Pick<GatewayConfig, "WEB_SUPPORT_DIR" | "WEB_SUPPORT_CONNECT_SRC" | "WEB_SUPPORT_FRAME_ANCESTORS">): WebSupportOptions {
  return {
    dir: config.WEB_SUPPORT_DIR || DEFAULT_WEB_SUPPORT_DIR,
    connectSources: config.WEB_SUPPORT_CONNECT_SRC.split(/\s+/).filter(Boolean),
    frameAncestors: config.WEB_SUPPORT_FRAME_ANCESTORS.trim() || "'none'",
  };
}

export function contentSecurityPolicy(options: Pick<WebSupportOptions, "connectSources" | "frameAncestors">): string {
  const connect = ["'self'", ...options.connectSources].join(" ");
  // img-src also allows blob: (attachments are fetched with the session header, then shown as
  // object URLs) and the storage endpoint; nothing else leaves the origin.
  const images = ["'self'", "blob:", ...options.connectSources].join(" ");
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${images}`,
    `media-src 'self' blob:`,
    `connect-src ${connect}`,
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${options.frameAncestors}`,
  ].join("; ");
}

const NOT_BUILT_PAGE =
  "<!doctype html><html lang=en><meta charset=utf-8><title>Support page unavailable</title>" +
  "<h1>The support page is not available</h1><p>It has not been built on this server. Run <code>pnpm run build</code> " +
  "(or <code>pnpm --filter @support/web-support build</code>) and reload.</p></html>";

export function registerWebSupportRoutes(router: GatewayRouter, options: WebSupportOptions): void {
  const serve = staticBundle({ dir: options.dir, contentSecurityPolicy: contentSecurityPolicy(options), notBuiltPage: NOT_BUILT_PAGE });

  router.get("/support", (ctx) => {
    // The bundle's relative asset paths need the trailing slash; the query (?sid=) is kept.
    ctx.status = 301;
    ctx.redirect(`/support/${ctx.search}`);
  });
  router.get("/support/", serve(() => "index.html"));
  router.get("/support/index.html", serve(() => "index.html"));
  router.get("/support/favicon.svg", serve(() => "favicon.svg"));
  router.get("/support/assets/:file", serve((ctx) => `assets/${ctx.params.file}`));
}
