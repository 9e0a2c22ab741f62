// Abuse limits of the public endpoints: fixed-window counters per client address and per
// environment token, answered with 429 `rate_limited` and `retry-after` (seconds). The counts
// live in Postgres behind the players service (ConsumeRateLimit), so every gateway replica
// shares them; see docs/sessions.md for why there and not in NATS KV or in memory.
//
// What a replica keeps in memory is only a cache of refusals: once a bucket is over its limit it
// stays so until its window ends (counts only grow within a window), so further requests of
// that bucket are refused here without an RPC. A flood therefore costs one RPC per bucket and
// window per replica, not one per request.
import { isIP } from "node:net";
import { LRUCache } from "lru-cache";
import type { Context, Middleware } from "koa";
import { isUuid } from "@support/errors";
import { rateLimitRefusals, type Registry } from "@support/metrics";
import { rateLimited, type HttpProblem } from "./errors.ts";

export interface RateLimitBucket {
  key: string;
  limit: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  exceededKey?: string | undefined;
  retryAfterSeconds: number;
}

/** Where the shared counters live (the players service in production, a fake in unit tests). */
export type RateLimitStore = (windowSeconds: number, buckets: RateLimitBucket[]) => Promise<RateLimitDecision>;

export interface RateLimitSettings {
  /** Requests per window and client address; 0 switches the limit off. */
  perAddress: number;
  /** Requests per window and environment token (or session, see `credential`); 0 switches the limit off. */
  perToken: number;
  windowSeconds: number;
  /** How the client address is found behind proxies: see parseTrustProxy. */
  trustProxy: TrustProxy;
  /**
   * Prefix of every bucket key, so that limits of different endpoint groups count apart on the
   * same shared counters (the public session endpoints: none; `/player-api`: `player-api:`).
   */
  keyPrefix?: string | undefined;
  /** What the second bucket counts: an environment token (default) or a session code's hash. */
  credential?: "token" | "session" | undefined;
  /** Most buckets remembered as over their limit (20,000 by default); the least recently used go first. */
  refusedCacheMax?: number | undefined;
  /** Told about every refused request (support_rate_limit_refusals_total, see refusalCounter). */
  onRefused?: (() => void) | undefined;
}

/** Counts a limiter's refusals as support_rate_limit_refusals_total{limit}; `limit` is a fixed name such as "session_create". */
export function refusalCounter(registry: Registry | undefined, limit: string): (() => void) | undefined {
  if (!registry) return undefined;
  const counter = rateLimitRefusals(registry);
  const labels = { limit };
  return () => counter.inc(labels);
}

/**
 * `none`: the socket's peer is the client; X-Forwarded-For is ignored (the default: a client
 * could write anything there). `first`: the first (leftmost) address of X-Forwarded-For, for
 * a proxy that sets the header itself, overwriting what the client sent. `hops`: that many
 * proxies append to the header; the address the outermost one saw is the `hops`-th from the
 * right, and whatever the client wrote further left is ignored.
 */
export type TrustProxy = { mode: "none" } | { mode: "first" } | { mode: "hops"; hops: number };

/** TRUST_PROXY: empty/`false`/`0` -> none, `true` -> first, a positive integer n -> n hops. */
export function parseTrustProxy(value: string): TrustProxy {
  const normalized = value.trim().toLowerCase();
  if (normalized === "" || normalized === "false" || normalized === "0") return { mode: "none" };
  if (normalized === "true") return { mode: "first" };
  if (/^[1-9][0-9]?$/.test(normalized)) return { mode: "hops", hops: Number(normalized) };
  throw new Error(`TRUST_PROXY must be true, false or a number of proxies (1-99), not "${value}"`);
}

/** One X-Forwarded-For entry as an IP address, or undefined (`1.2.3.4:80` and `[::1]:80` lose the port). */
function addressOf(entry: string | undefined): string | undefined {
  if (entry === undefined) return undefined;
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  return isIP(value) === 0 ? undefined : value;
}

/** The client's address per TRUST_PROXY; falls back to the socket's peer when the header gives none. */
export function clientAddress(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trust: TrustProxy): string {
  const peer = remoteAddress ?? "unknown";
  if (trust.mode === "none" || forwardedFor === undefined) return peer;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  if (entries.length === 0) return peer;
  if (trust.mode === "first") return addressOf(entries[0]) ?? peer;
  const chain = [...entries, peer];
  return addressOf(chain[Math.max(0, chain.length - 1 - trust.hops)]) ?? peer;
}

/** The first four groups of an IPv6 address (its /64), expanded: one subscriber's whole network. */
export function ipv6Prefix64(address: string): string {
  const [withoutZone] = address.split("%");
  const [head = "", tail] = withoutZone!.split("::");
  const toGroups = (part: string) => (part === "" ? [] : part.split(":")).flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]));
  const headGroups = toGroups(head);
  const tailGroups = tail === undefined ? [] : toGroups(tail);
  const groups = [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill("0"), ...tailGroups];
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(":")}::/64`;
}

/**
 * The bucket of a client address: an IPv4 address as it is (IPv4-mapped IPv6 included), an
 * IPv6 address by its /64, since one subscriber gets a whole /64 and could rotate through it.
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  return isIP(address) === 6 ? ipv6Prefix64(address) : address;
}

export interface PublicRateLimiter {
  /**
   * Middleware that counts the request against its client address and, when `tokenOf` finds
   * one, its environment token; over a limit it throws the 429.
   */
  middleware(tokenOf: (ctx: Context) => string | undefined): Middleware;
}

/** An environment token worth a bucket: uuid-shaped (anything else is refused by validation anyway). */
export function tokenBucketOf(value: unknown): string | undefined {
  return isUuid(value) ? value.toLowerCase() : undefined;
}

function tooManyRequests(key: string, retryAfterSeconds: number, prefix: string): HttpProblem {
  const kind = key.slice(prefix.length);
  const what = kind.startsWith("token:") ? "for this environment token" : kind.startsWith("session:") ? "for this session" : "from this address";
  return rateLimited(what, retryAfterSeconds);
}

export function createPublicRateLimiter(store: RateLimitStore, settings: RateLimitSettings, clock: () => number = Date.now): PublicRateLimiter {
  // bucket key -> epoch ms until which the bucket is known to be over its limit. Stale entries
  // are ignored when read and pushed out by newer ones (bounded size).
  const refused = new LRUCache<string, number>({ max: settings.refusedCacheMax ?? 20_000 });
  const prefix = settings.keyPrefix ?? "";
  const credential = settings.credential ?? "token";

  return {
    middleware(tokenOf) {
      return async (ctx, next) => {
        const buckets: RateLimitBucket[] = [];
        if (settings.perAddress > 0) {
          const address = clientAddress(ctx.req.socket.remoteAddress, ctx.headers["x-forwarded-for"], settings.trustProxy);
          buckets.push({ key: `${prefix}address:${addressBucket(address)}`, limit: settings.perAddress });
        }
        const token = settings.perToken > 0 ? tokenOf(ctx) : undefined;
        if (token !== undefined) buckets.push({ key: `${prefix}${credential}:${token}`, limit: settings.perToken });
        if (buckets.length === 0) return next();

        const now = clock();
        for (const bucket of buckets) {
          const until = refused.get(bucket.key);
          if (until !== undefined && until > now) {
            settings.onRefused?.();
            throw tooManyRequests(bucket.key, (until - now) / 1000, prefix);
          }
        }
        const decision = await store(settings.windowSeconds, buckets);
        if (!decision.allowed) {
          const key = decision.exceededKey ?? buckets[0]!.key;
          refused.set(key, now + decision.retryAfterSeconds * 1000);
          settings.onRefused?.();
          throw tooManyRequests(key, decision.retryAfterSeconds, prefix);
        }
        return next();
      };
    },
  };
}
