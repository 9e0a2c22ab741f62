// API key authentication: `Authorization: Bearer <key>` -> SHA-256 hex -> content's
// AuthenticateApiKey, with answers cached so that a steady client costs no RPC per request.
// Missing header, another scheme, an unknown or a revoked key all get the same 403; repeated
// failures from one client address are throttled (middleware/api-key-failures.ts).
import { createHash } from "node:crypto";
import { unauthenticated } from "@support/errors";
import { connectToAppError } from "@support/rpc";
import type { Middleware } from "koa";
import { hasSessionCookie } from "./agent-api/cookie.ts";
import { CoalescingCache } from "./cache.ts";
import type { ContentClient } from "./clients.ts";
import type { ApiKeyUseRecorder } from "./api-key-use.ts";
import type { ApiKeyFailureLimiter } from "./middleware/api-key-failures.ts";

/** Who a live key is: its company, and the key itself for attributing actions to it. */
export interface ApiKeyIdentity {
  companyId: string;
  apiKeyId: string;
  /** Rate limits (requests per minute) set for the key and its company; unset: the defaults. */
  keyRateLimitPerMinute?: number | undefined;
  companyRateLimitPerMinute?: number | undefined;
}

/** The 403's message for a request with the support application's session cookie and no key. */
export const AGENT_COOKIE_REFUSED =
  "This API takes an API key (Authorization: Bearer <API_KEY>), not the support application's session cookie, which opens /agent-api only";

/** Cached answer for a key that content does not know (or has revoked). */
const UNKNOWN_KEY: ApiKeyIdentity = Object.freeze({ companyId: "", apiKeyId: "" });

export type ApiKeyCache = CoalescingCache<ApiKeyIdentity>;

export function createApiKeyCache(options: { ttlMs: number; negativeTtlMs: number; max?: number }): ApiKeyCache {
  return new CoalescingCache<ApiKeyIdentity>({
    max: options.max ?? 50_000,
    ttlMs: options.ttlMs,
    ttlOf: (identity) => (identity === UNKNOWN_KEY ? options.negativeTtlMs : options.ttlMs),
  });
}

// RFC 6750 b64token, and a length that any key with >= 32 bytes of entropy has: anything else
// is refused without asking content.
const plausibleKey = /^[A-Za-z0-9._~+/-]{16,512}=*$/;

/** The key of an `Authorization: Bearer <key>` header; undefined for anything else. */
export function bearerKey(header: string | undefined): string | undefined {
  if (!header || header.length < 8) return undefined;
  const space = header.indexOf(" ");
  if (space !== 6 || header.slice(0, 6).toLowerCase() !== "bearer") return undefined;
  const key = header.slice(7).trim();
  return plausibleKey.test(key) ? key : undefined;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

// Raw key -> its SHA-256 for the keys seen last, so that a steady client is not hashed on every
// request. Bounded: emptied when full (the keys in use refill it on their next request).
const KEY_HASHES_MAX = 1024;

export interface AuthDeps {
  content: ContentClient;
  keys: ApiKeyCache;
  /** Counts failed authentications per client address and refuses an address over its limit; none: never throttled. */
  failures?: ApiKeyFailureLimiter | undefined;
  /** Notes each key's use (its last use in the settings); none: not noted. */
  uses?: Pick<ApiKeyUseRecorder, "used"> | undefined;
}

/** Koa middleware: sets `ctx.state.companyId`, `ctx.state.apiKeyId` and `ctx.state.apiKey` or throws the 403
 * `unauthenticated` (the 429 `rate_limited` for a client address over its failure limit). */
export function createAuthMiddleware(deps: AuthDeps): Middleware {
  const load = async (keyHash: string): Promise<ApiKeyIdentity> => {
    try {
      const response = await deps.content.authenticateApiKey({ keyHash });
      if (!response.companyId) return UNKNOWN_KEY;
      const { companyId, apiKeyId, keyRateLimitPerMinute, companyRateLimitPerMinute } = response;
      return { companyId, apiKeyId, keyRateLimitPerMinute, companyRateLimitPerMinute };
    } catch (error) {
      // Only "no such live key" is an answer worth caching; an outage propagates (503).
      if (connectToAppError(error).code === "not_found") return UNKNOWN_KEY;
      throw error;
    }
  };
  const hashes = new Map<string, string>();
  const hashOf = (key: string) => {
    const keyHash = hashApiKey(key);
    if (hashes.size >= KEY_HASHES_MAX) hashes.clear();
    hashes.set(key, keyHash);
    return keyHash;
  };
  const { failures } = deps;
  // A failure with a credential presented: counted per client address, answered 403, or 429 over the limit.
  const fail = (ctx: Parameters<Middleware>[0]): Promise<never> => failures!.failed(ctx).then((error) => Promise.reject(error));
  const admit = (ctx: Parameters<Middleware>[0], identity: ApiKeyIdentity, keyHash: string, next: () => Promise<unknown>) => {
    if (identity === UNKNOWN_KEY) {
      if (failures) return fail(ctx);
      throw unauthenticated();
    }
    failures?.succeeded(keyHash);
    deps.uses?.used(identity.apiKeyId);
    ctx.state.companyId = identity.companyId;
    ctx.state.apiKeyId = identity.apiKeyId;
    ctx.state.apiKey = identity;
    return next();
  };
  // Not an async function: a key found in the cache goes on to the next middleware without a
  // promise of its own.
  return (ctx, next) => {
    const key = bearerKey(ctx.headers.authorization);
    if (key === undefined) {
      if (failures && ctx.headers.authorization !== undefined) return fail(ctx);
      // A browser of the support application sends its cookie everywhere on this host: say
      // why it does not open the public API.
      if (ctx.headers.authorization === undefined && hasSessionCookie(ctx.headers.cookie)) throw unauthenticated(AGENT_COOKIE_REFUSED);
      throw unauthenticated();
    }
    const keyHash = hashes.get(key) ?? hashOf(key);
    // An address over its failure limit gets its 429 before its key is looked up.
    failures?.check(ctx, keyHash);
    const found = deps.keys.get(keyHash, load);
    return found instanceof Promise ? found.then((identity) => admit(ctx, identity, keyHash, next)) : admit(ctx, found, keyHash, next);
  };
}
