// Serves the web support page (the static bundle of apps/web-support) at /support/ with a strict
// Content-Security-Policy. Only /support/, /support/index.html, /support/favicon.svg and
// /support/assets/<file> are answered here, so /support/sessions and /support/sessions/redirect stay the API's.
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import type { GatewayConfig } from "../config.ts";
import type { GatewayRouter, GatewayState } from "../types.ts";
import type Koa from "koa";

/** The bundle in the repository, built by `pnpm run build` (turbo's build task). */
export const DEFAULT_WEB_SUPPORT_DIR = fileURLToPath(new URL("../../../../apps/web-support/dist/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

interface StaticFile {
  type: string;
  raw: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

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

/** Reads the bundle once (and again when index.html changes), compressed ahead of time. */
function createBundle(dir: string) {
  let loaded: { mtimeMs: number; files: Map<string, StaticFile> } | undefined;
  async function read(path: string): Promise<StaticFile> {
    const raw = await readFile(path);
    return {
      type: TYPES[extname(path)] ?? "application/octet-stream",
      raw,
      gzip: gzipSync(raw, { level: 9 }),
      brotli: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
    };
  }
  return {
    /** The bundle, or undefined when it has not been built. */
    async files(): Promise<Map<string, StaticFile> | undefined> {
      let mtimeMs: number;
      try {
        mtimeMs = (await stat(join(dir, "index.html"))).mtimeMs;
      } catch {
        loaded = undefined;
        return undefined;
      }
      if (loaded?.mtimeMs === mtimeMs) return loaded.files;
      const files = new Map<string, StaticFile>();
      files.set("index.html", await read(join(dir, "index.html")));
      // The page's icon (its <link rel="icon">), when the bundle has one.
      await read(join(dir, "favicon.svg")).then((file) => files.set("favicon.svg", file), () => undefined);
      const assets = await readdir(join(dir, "assets")).catch(() => [] as string[]);
      for (const name of assets) files.set(`assets/${name}`, await read(join(dir, "assets", name)));
      loaded = { mtimeMs, files };
      return files;
    },
  };
}

const NOT_BUILT_PAGE =
  "<!doctype html><html lang=en><meta charset=utf-8><title>Support page unavailable</title>" +
  "<h1>The support page is not available</h1><p>It has not been built on this server. Run <code>pnpm run build</code> " +
  "(or <code>pnpm --filter @support/web-support build</code>) and reload.</p></html>";

export function registerWebSupportRoutes(router: GatewayRouter, options: WebSupportOptions): void {
  const bundle = createBundle(resolve(options.dir));
  const csp = contentSecurityPolicy(options);

  const serve = (name: (ctx: Koa.ParameterizedContext<GatewayState>) => string) => async (ctx: Koa.ParameterizedContext<GatewayState>) => {
    ctx.set("Content-Security-Policy", csp);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("Cross-Origin-Resource-Policy", "same-origin");
    const files = await bundle.files();
    if (!files) {
      ctx.status = 503;
      ctx.set("Retry-After", "30");
      ctx.set("Cache-Control", "no-store");
      ctx.type = "text/html; charset=utf-8";
      ctx.body = NOT_BUILT_PAGE;
      return;
    }
    const file = files.get(name(ctx));
    if (!file) {
      ctx.status = 404;
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = "Not found";
      return;
    }
    // Hashed asset names never change content; index.html is asked for again every time.
    ctx.set("Cache-Control", name(ctx).startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache");
    ctx.set("Vary", "Accept-Encoding");
    ctx.type = file.type;
    // Brotli when the browser takes it (smaller), else gzip; not the client's order of equals.
    const accepted = ctx.acceptsEncodings("br") === "br" ? "br" : ctx.acceptsEncodings("gzip") === "gzip" ? "gzip" : "identity";
    if (accepted === "br") {
      ctx.set("Content-Encoding", "br");
      ctx.body = file.brotli;
    } else if (accepted === "gzip") {
      ctx.set("Content-Encoding", "gzip");
      ctx.body = file.gzip;
    } else {
      ctx.body = file.raw;
    }
  };

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
