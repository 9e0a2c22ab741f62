// A game's logo for its web support page, served from our own origin (the page makes no
// third-party request and its CSP's img-src 'self' covers it): GET /support/logos/<gameId>/<sha256>.
// content keeps the bytes (a validated PNG, JPEG or WebP of at most 256 KiB, games/branding.ts);
// the hash in the path names one version, so the answer is cached for a year (immutable) and a
// new logo gets a new URL. The gateway keeps the last logo of each game in memory and forgets it
// on the game's content.game.branding_updated (or deleted) event, so a removed logo stops at once.
import { Code, ConnectError } from "@connectrpc/connect";
import type { ContentClient } from "../clients.ts";
import { CoalescingCache } from "../cache.ts";
import type { GatewayRouter } from "../types.ts";

export interface CachedLogo {
  sha256: string;
  /** Absent: content has no such logo (cached briefly). */
  data?: Buffer;
  contentType?: string;
}

export interface LogoCache {
  get(gameId: string, sha256: string, load: () => Promise<CachedLogo>): Promise<CachedLogo>;
  evictGame(gameId: string): void;
  clear(): void;
}

export function createLogoCache(options: { ttlMs?: number; maxBytes?: number } = {}): LogoCache {
  const cache = new CoalescingCache<CachedLogo>({
    max: 2_000,
    ttlMs: options.ttlMs ?? 10 * 60_000,
    ttlOf: (logo) => (logo.data ? (options.ttlMs ?? 10 * 60_000) : 30_000),
    maxSize: { total: options.maxBytes ?? 32 * 1024 * 1024, sizeOf: (logo) => (logo.data?.byteLength ?? 0) + 100 },
  });
  return {
    async get(gameId, sha256, load) {
      const cached = await cache.get(gameId, load);
      if (cached.sha256 === sha256) return cached;
      // Another version was cached (a newer logo, or an old URL): ask content for this one.
      cache.evict(gameId);
      return cache.get(gameId, load);
    },
    evictGame: (gameId) => cache.evict(gameId),
    clear: () => cache.clear(),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHA256 = /^[0-9a-f]{64}$/;

/** The path the page loads a logo from. */
export function logoPath(gameId: string, sha256: string): string {
  return `/support/logos/${gameId}/${sha256}`;
}

export function registerGameLogoRoutes(router: GatewayRouter, deps: { content: ContentClient; logos: LogoCache }): void {
  router.get("/support/logos/:gameId/:sha256", async (ctx) => {
    const { gameId, sha256 } = ctx.params as { gameId: string; sha256: string };
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; sandbox");
    ctx.set("Referrer-Policy", "no-referrer");
    // Players' pages may sit on another origin (a CDN-hosted page): images load cross-origin.
    ctx.set("Cross-Origin-Resource-Policy", "cross-origin");
    const notFound = () => {
      ctx.status = 404;
      ctx.set("Cache-Control", "no-store");
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = "Not found";
    };
    if (!UUID.test(gameId) || !SHA256.test(sha256)) return notFound();
    const logo = await deps.logos.get(gameId.toLowerCase(), sha256, async () => {
      try {
        const answer = await deps.content.getGameLogo({ gameId, sha256 });
        return { sha256, data: Buffer.from(answer.data), contentType: answer.contentType };
      } catch (error) {
        if (ConnectError.from(error).code === Code.NotFound) return { sha256 };
        throw error;
      }
    });
    if (!logo.data || !logo.contentType) return notFound();
    const etag = `"${sha256}"`;
    ctx.set("ETag", etag);
    ctx.set("Cache-Control", "public, max-age=31536000, immutable");
    if (ctx.get("If-None-Match") === etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = logo.contentType;
    ctx.body = logo.data;
  });
}
