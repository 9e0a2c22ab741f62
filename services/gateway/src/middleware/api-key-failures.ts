// Throttling of failed API key authentications per client address: a client that keeps
// presenting keys the platform does not know (guessing, or a leaked list tried key by key)
// is refused with 429 `rate_limited` before its keys are even looked up.
//
// - A failure is a request whose Authorization header carries no live key: another scheme, a
//   malformed key, an unknown or a revoked one. A request without the header guesses nothing
//   and costs no lookup: it gets its 403 and is not counted.
// - Each failure is counted in the shared fixed-window counters of the players service
//   (ConsumeRateLimit, the ones the public endpoints use), under `api-key-failure:address:<a>`,
//   so every replica sees the same count. The failure that makes the count exceed
//   API_KEY_FAILURES_PER_ADDRESS is answered 429 instead of 403, and the address is remembered
//   as blocked in this replica until the window ends: from then on its requests are refused
//   with 429, `retry-after` and RateLimit-* (of this limit) without a lookup or an RPC, so a flood costs one RPC per failure
//   up to the limit, then none.
// - A key this replica has seen authenticate lately is exempt from the block: it is looked up
//   as usual (a revoked one is refused then). Someone else's failures from the same address
//   (a shared NAT, an office, a CI provider) therefore never block a client whose key is in use,
//   only a client whose key this replica has not seen yet, for the rest of the window at most.
//   The exemption never admits a request by itself, so it gives a guesser nothing.
// - When the counters cannot be reached, a failure is answered with its 403 as before: the
//   limit never turns a refusal into an outage.
import type { Context } from "koa";
import { LRUCache } from "lru-cache";
import { unauthenticated } from "@support/errors";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { GatewayConfig } from "../config.ts";
import { addressBucket, clientAddress, parseTrustProxy, refusalCounter, type RateLimitStore, type TrustProxy } from "./rate-limit.ts";
import { rateLimited } from "./errors.ts";

export interface ApiKeyFailureSettings {
  /** Failed authentications per window and client address; 0 switches the limit off. */
  perAddress: number;
  windowSeconds: number;
  trustProxy: TrustProxy;
  /** Most addresses remembered as blocked; the least recently used go first. */
  refusedCacheMax: number;
  /** Most keys remembered as seen valid (their SHA-256); the least recently used go first. */
  knownKeysMax: number;
  onRefused?: (() => void) | undefined;
  logger?: Logger | undefined;
}

export interface ApiKeyFailureLimiter {
  /** Throws the 429 when the request's address is blocked and `keyHash` has not authenticated lately here. */
  check(ctx: Context, keyHash: string): void;
  /** Counts a failed authentication of the request; resolves to what to throw: the 403, or the 429 once over the limit. */
  failed(ctx: Context): Promise<Error>;
  /** Remembers a key that authenticated (exempt from blocks from now on). */
  succeeded(keyHash: string): void;
}

const PREFIX = "api-key-failure:address:";
const WHAT = "with invalid API keys from this address";

export function createApiKeyFailureLimiter(store: RateLimitStore, settings: ApiKeyFailureSettings, clock: () => number = Date.now): ApiKeyFailureLimiter {
  // address bucket -> epoch ms until which it is blocked. Stale entries are ignored when read.
  const blocked = new LRUCache<string, number>({ max: settings.refusedCacheMax });
  const knownKeys = new LRUCache<string, true>({ max: settings.knownKeysMax });
  let storeFailing = false;

  const bucketOf = (ctx: Context) => addressBucket(clientAddress(ctx.req.socket.remoteAddress, ctx.headers["x-forwarded-for"], settings.trustProxy));
  const blockedFor = (bucket: string, now: number): number | undefined => {
    const until = blocked.get(bucket);
    return until !== undefined && until > now ? until - now : undefined;
  };
  // The RateLimit-* headers every 429 of an API-key operation carries (the document requires
  // them), here of this limit: the failures allowed, none left, the seconds until the window ends.
  const refuse = (remainingMs: number) => {
    settings.onRefused?.();
    const resetSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
    return rateLimited(WHAT, resetSeconds, { "RateLimit-Limit": String(settings.perAddress), "RateLimit-Remaining": "0", "RateLimit-Reset": String(resetSeconds) });
  };

  return {
    check(ctx, keyHash) {
      // The common case, nothing blocked: no address to work out.
      if (settings.perAddress === 0 || blocked.size === 0) return;
      const remainingMs = blockedFor(bucketOf(ctx), clock());
      if (remainingMs === undefined || knownKeys.get(keyHash) !== undefined) return;
      throw refuse(remainingMs);
    },

    async failed(ctx) {
      if (settings.perAddress === 0) return unauthenticated();
      const bucket = bucketOf(ctx);
      const now = clock();
      const remainingMs = blockedFor(bucket, now);
      if (remainingMs !== undefined) return refuse(remainingMs);
      let decision;
      try {
        decision = await store(settings.windowSeconds, [{ key: `${PREFIX}${bucket}`, limit: settings.perAddress }]);
      } catch (error) {
        if (!storeFailing) settings.logger?.warn({ err: error }, "failed API key authentications cannot be counted (players unreachable); they are answered 403 without a limit meanwhile");
        storeFailing = true;
        return unauthenticated();
      }
      storeFailing = false;
      if (decision.allowed) return unauthenticated();
      blocked.set(bucket, now + decision.retryAfterSeconds * 1000);
      return refuse(decision.retryAfterSeconds * 1000);
    },

    succeeded(keyHash) {
      // get first: a key in use stays at the front without a write on every request.
      if (knownKeys.get(keyHash) === undefined) knownKeys.set(keyHash, true);
    },
  };
}

/** The limiter with the gateway's settings; its refusals count as support_rate_limit_refusals_total{limit="api_key_failures"}. */
export function apiKeyFailureLimiterFromConfig(store: RateLimitStore, config: GatewayConfig, logger: Logger, registry?: Registry): ApiKeyFailureLimiter {
  return createApiKeyFailureLimiter(store, {
    perAddress: config.API_KEY_FAILURES_PER_ADDRESS,
    windowSeconds: config.API_KEY_FAILURE_WINDOW_SECONDS,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    refusedCacheMax: config.RATE_LIMIT_REFUSED_CACHE_MAX,
    knownKeysMax: config.API_KEY_CACHE_MAX,
    onRefused: refusalCounter(registry, "api_key_failures"),
    logger,
  });
}
