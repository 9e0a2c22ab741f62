// CORS for /player-api: the web support page may be served from another origin than the
// gateway (a CDN, a game's own domain). Only the configured origins get CORS headers; any
// other origin gets none, so the browser keeps its page from reading the answers. The
// credential is the Authorization header (never a cookie), so credentials mode is not needed.
import type { Middleware } from "koa";

const ALLOWED_METHODS = "GET, POST";
const ALLOWED_HEADERS = "Authorization, Content-Type, Last-Event-ID";
// What the page reads from answers besides the CORS-safelisted headers.
const EXPOSED_HEADERS = "Retry-After, X-Request-Id";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/**
 * `WEB_SUPPORT_ORIGINS` (comma-separated origins; empty: the origin of `WEB_SUPPORT_URL`)
 * as a set of normalized origins. Throws for an entry that is not an origin.
 */
export function parseAllowedOrigins(value: string, webSupportUrl: string): Set<string> {
  const entries = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  if (entries.length === 0) return new Set([new URL(webSupportUrl).origin]);
  const origins = new Set<string>();
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`WEB_SUPPORT_ORIGINS: ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`);
    }
    if (!["http:", "https:"].includes(url.protocol) || url.origin !== entry.replace(/\/$/, "").toLowerCase()) {
      throw new Error(`WEB_SUPPORT_ORIGINS: ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`);
    }
    origins.add(url.origin);
  }
  return origins;
}

/** Answers preflights and adds the CORS headers on /player-api/* for allowed origins. */
export function playerApiCors(allowed: ReadonlySet<string>): Middleware {
  return (ctx, next) => {
    if (!ctx.path.startsWith("/player-api/")) return next();
    ctx.vary("Origin");
    const origin = ctx.get("Origin");
    if (origin === "" || !allowed.has(origin)) return next();
    ctx.set("Access-Control-Allow-Origin", origin);
    if (ctx.method === "OPTIONS" && ctx.get("Access-Control-Request-Method") !== "") {
      ctx.set("Access-Control-Allow-Methods", ALLOWED_METHODS);
      ctx.set("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      ctx.set("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_SECONDS);
      ctx.status = 204;
      return undefined;
    }
    ctx.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    return next();
  };
}
