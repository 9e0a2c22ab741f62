// Serves the web support page (the static bundle of apps/web-support) at /support/ with a strict
// Content-Security-Policy. Only /support/, /support/index.html, /support/favicon.svg and
// /support/assets/<file> are answered here, so /support/sessions and /support/sessions/redirect stay the API's.
import { fileURLToPath } from "node:url";
import type { GatewayConfig } from "../config.ts";
import type { GatewayRouter } from "../types.ts";
import type { Logger } from "@support/logging";
import { staticBundle, type BundleFiles, type Personalize } from "./static-bundle.ts";

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

/**
 * What the page shows first for a session code (the session and the conversations, as the
 * player API answers them), or undefined when the code is not live. It counts against the
 * player API's limits like the requests it saves.
 */
export type PlayerPageData = (ctx: Parameters<Personalize>[0], code: string) => Promise<{ session: { language: string } } | undefined>;

/** The session's data in the page itself, for the page opened by the redirect (`?sid=`). */
export interface PersonalizedPage {
  pageData: PlayerPageData;
  logger: Logger;
}

/** JSON inside a <script> element: no "<" at all, so neither "</script>" nor "<!--" can occur. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

const catalogMaps = new WeakMap<object, Record<string, string>>();

/** The catalog chunk the page loads for a language (the build's catalogs.json), if any: none for English. */
export function catalogFileFor(files: BundleFiles, language: string): string | undefined {
  const file = files.get("catalogs.json");
  if (!file) return undefined;
  let map = catalogMaps.get(file);
  if (!map) {
    try {
      map = JSON.parse(file.raw.toString("utf8")) as Record<string, string>;
    } catch {
      map = {};
    }
    catalogMaps.set(file, map);
  }
  const tag = language.toLowerCase();
  return map[tag] ?? map[tag.split("-")[0]!];
}

/**
 * index.html served at the redirect's target (`/support/?sid=<code>`) carries what the page would
 * ask for first, the session and the conversations, in a JSON data block (not run, so the CSP
 * is untouched), and preloads the session language's catalog: the page's data no longer waits
 * for its script to run. Any refusal or failure gives the page as it is, which then asks.
 */
function personalizedPage({ pageData, logger }: PersonalizedPage): Personalize {
  return async (ctx, file, files) => {
    const code = ctx.query.sid;
    if (typeof code !== "string" || code.length === 0 || code.length > 256) return undefined;
    let data: Awaited<ReturnType<PlayerPageData>>;
    try {
      data = await pageData(ctx, code);
    } catch (error) {
      logger.debug({ err: error }, "support page served without its session's data");
      return undefined;
    }
    if (!data) return undefined;
    const catalog = catalogFileFor(files, data.session.language);
    const preload = catalog ? `<link rel="modulepreload" crossorigin href="./${catalog}">` : "";
    const html = file.raw.toString("utf8");
    if (!html.includes("</head>")) return undefined;
    return html.replace("</head>", `${preload}<script type="application/json" id="support-page-data">${jsonForHtml(data)}</script></head>`);
  };
}

export function registerWebSupportRoutes(router: GatewayRouter, options: WebSupportOptions, personalized?: PersonalizedPage): void {
  const serve = staticBundle({ dir: options.dir, contentSecurityPolicy: contentSecurityPolicy(options), notBuiltPage: NOT_BUILT_PAGE });
  const personalize = personalized && personalizedPage(personalized);

  router.get("/support", (ctx) => {
    // The bundle's relative asset paths need the trailing slash; the query (?sid=) is kept.
    ctx.status = 301;
    ctx.redirect(`/support/${ctx.search}`);
  });
  router.get("/support/", serve(() => "index.html", personalize));
  router.get("/support/index.html", serve(() => "index.html", personalize));
  router.get("/support/favicon.svg", serve(() => "favicon.svg"));
  router.get("/support/assets/:file", serve((ctx) => `assets/${ctx.params.file}`));
}
