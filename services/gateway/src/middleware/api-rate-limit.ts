// Rate limits of the API-key endpoints: requests per minute per key and per company, shared by
// every gateway replica, without a remote call on the request path.
//
// Each replica counts what it admits in fixed one-minute windows aligned to the epoch, per key
// and per company. Every API_RATE_LIMIT_SYNC_INTERVAL_MS it sends what it counted since its
// previous sync to the players service in ONE batched call (AddRateLimitUsage: one SQL statement
// over the counters in Postgres that the public endpoints' limiter also uses) and gets back each
// counter's total over all replicas. A request is admitted on local knowledge only:
//
//   used = total at the last sync + sent but not yet acknowledged + counted since
//
// so a replica can overshoot only by what other replicas admitted since its last sync. To keep
// that small near the limit, a bucket that has counted a quarter of what was left at its last
// sync asks for an early sync (at most one in flight, and not more often than minSyncGapMs).
//
// When the players service cannot be reached, requests are never failed for it: each replica
// keeps counting and admits at most its share of a limit (API_RATE_LIMIT_OFFLINE_SHARE) on its
// own counts, logs the outage once, counts failed syncs in
// support_rate_limit_sync_failures_total, and resends the unacknowledged counts on recovery.
import type { Logger } from "@support/logging";
import { rateLimitRefusals, rateLimitSyncFailures, type Registry } from "@support/metrics";
import type { Middleware } from "koa";
import type { ApiKeyIdentity } from "../auth.ts";
import type { PlayersClient } from "../clients.ts";
import type { GatewayConfig } from "../config.ts";
import { rateLimited, type HttpProblem } from "./errors.ts";

/** The windows are minutes: the limits are configured per minute. */
export const WINDOW_SECONDS = 60;
const WINDOW_MS = WINDOW_SECONDS * 1000;
/** Most usages in one sync call (the players service takes up to 10,000). */
const MAX_BATCH = 10_000;

export interface UsageDelta {
  key: string;
  /** Start of the window, seconds since the epoch. */
  windowStart: number;
  delta: number;
}

export interface UsageTotal {
  key: string;
  windowStart: number;
  total: number;
}

/** Adds the deltas to the shared counters and answers each one's total, in order (players.AddRateLimitUsage). */
export type UsageStore = (windowSeconds: number, usages: UsageDelta[]) => Promise<UsageTotal[]>;

export type ApiLimitName = "api_key" | "company";

export interface ApiRateLimitSettings {
  /** Requests per minute of a company whose own limit is not set (API_RATE_LIMIT_PER_MINUTE). */
  defaultPerMinute: number;
  /** How often counts are sent to and totals read from the shared counters. */
  syncIntervalMs: number;
  /** Share of a limit one replica admits on its own counts while the shared counters are unreachable, in (0, 1]. */
  offlineShare: number;
  /** Least time between two syncs that a bucket near its limit asks for early; default a tenth of syncIntervalMs (at least 10 ms). */
  minSyncGapMs?: number | undefined;
  onRefused?: ((limit: ApiLimitName) => void) | undefined;
  /** Told about every failed sync; `first` is true for the first failure after a success. */
  onSyncFailed?: ((error: unknown, first: boolean) => void) | undefined;
  /** Told when a sync succeeds again after failures. */
  onSyncRecovered?: (() => void) | undefined;
}

interface Bucket {
  /** The counter's key in the shared store: `api-key:<id>` or `api-company:<id>`. */
  key: string;
  /** The limit the last request saw (the key's or company's setting may change with the key cache). */
  limit: number;
  /** Start of the window these counts belong to, in seconds. */
  windowStart: number;
  /** Total over every replica at this replica's last sync in this window (its own acknowledged counts included). */
  shared: number;
  /** Sent in the sync under way, not acknowledged yet. */
  inFlight: number;
  /** Counted since the last sync was sent. */
  pending: number;
  /** Admitted by this replica in this window (what the offline share caps). */
  own: number;
  /** A quarter of what was left at the last sync: counting that many asks for an early sync. */
  earlyAfter: number;
}

export interface ApiRateLimiter {
  /** Runs after the API key check (it reads `ctx.state.apiKey`); sets the RateLimit-* headers or throws the 429. */
  middleware(): Middleware;
  /** Starts the periodic sync. */
  start(): void;
  /** Stops it, after one last sync of what is still counted while the store answers (failures are only reported). */
  stop(): Promise<void>;
  /** One sync now (tests; the timer calls it otherwise). */
  sync(): Promise<void>;
  /** Whether the last sync reached the shared counters. */
  readonly online: boolean;
}

function tooManyRequests(limit: ApiLimitName, limitValue: number, resetSeconds: number): HttpProblem {
  const what = limit === "api_key" ? "for this API key" : "for this company's API keys";
  return rateLimited(what, resetSeconds, { "RateLimit-Limit": String(limitValue), "RateLimit-Remaining": "0", "RateLimit-Reset": String(resetSeconds) });
}

export function createApiRateLimiter(store: UsageStore, settings: ApiRateLimitSettings, clock: () => number = Date.now): ApiRateLimiter {
  // By key id and by company id, so that a request builds no string; the store's key is built once per bucket.
  const keyBuckets = new Map<string, Bucket>();
  const companyBuckets = new Map<string, Bucket>();
  const minGapMs = settings.minSyncGapMs ?? Math.max(10, settings.syncIntervalMs / 10);
  let online = true;
  let syncing: Promise<void> | undefined;
  let lastSyncAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let earlyTimer: NodeJS.Timeout | undefined;

  /** The bucket of `id` in the window starting at `windowStart`, reset when its window has ended. */
  function bucketOf(map: Map<string, Bucket>, prefix: string, id: string, limit: number, windowStart: number): Bucket {
    let bucket = map.get(id);
    if (bucket === undefined) {
      bucket = { key: prefix + id, limit, windowStart, shared: 0, inFlight: 0, pending: 0, own: 0, earlyAfter: 1 };
      map.set(id, bucket);
    } else if (bucket.windowStart !== windowStart) {
      // Counts of an ended window are of no use to anyone any more: dropped, not sent.
      bucket.windowStart = windowStart;
      bucket.shared = 0;
      bucket.inFlight = 0;
      bucket.pending = 0;
      bucket.own = 0;
      bucket.earlyAfter = 1;
    }
    bucket.limit = limit;
    return bucket;
  }

  function admits(bucket: Bucket): boolean {
    if (bucket.shared + bucket.inFlight + bucket.pending >= bucket.limit) return false;
    return online || bucket.own < Math.max(1, Math.floor(bucket.limit * settings.offlineShare));
  }

  function remaining(bucket: Bucket): number {
    return Math.max(0, bucket.limit - bucket.shared - bucket.inFlight - bucket.pending);
  }

  function count(bucket: Bucket): void {
    bucket.pending += 1;
    bucket.own += 1;
    // Until the first sync of the window (earlyAfter 1) nothing is known of the other replicas.
    if (bucket.pending >= bucket.earlyAfter) requestEarlySync();
  }

  function requestEarlySync(): void {
    // While the store is unreachable only the periodic syncs try it again.
    if (timer === undefined || !online || syncing !== undefined || earlyTimer !== undefined) return;
    const wait = lastSyncAt + minGapMs - performance.now();
    if (wait <= 0) void sync();
    else {
      earlyTimer = setTimeout(() => {
        earlyTimer = undefined;
        void sync();
      }, wait);
      earlyTimer.unref();
    }
  }

  /** The buckets of the current window, after deleting those idle since their window ended. */
  function activeBuckets(windowStart: number): Bucket[] {
    const active: Bucket[] = [];
    for (const map of [keyBuckets, companyBuckets]) {
      for (const [id, bucket] of map) {
        if (bucket.windowStart === windowStart) active.push(bucket);
        else map.delete(id);
      }
    }
    return active;
  }

  async function syncOnce(): Promise<void> {
    const windowStart = Math.floor(clock() / WINDOW_MS) * WINDOW_SECONDS;
    const active = activeBuckets(windowStart);
    if (active.length === 0) return;
    let failure: unknown;
    for (let start = 0; start < active.length; start += MAX_BATCH) {
      const batch = active.slice(start, start + MAX_BATCH);
      // Buckets with nothing new are sent too (delta 0): their totals tell what the other replicas used.
      const usages = batch.map((bucket) => ({ key: bucket.key, windowStart, delta: bucket.pending }));
      for (const bucket of batch) {
        bucket.inFlight += bucket.pending;
        bucket.pending = 0;
      }
      try {
        const totals = await store(WINDOW_SECONDS, usages);
        batch.forEach((bucket, index) => {
          // A bucket whose window rolled over meanwhile was reset: the answer is about the old window.
          if (bucket.windowStart !== windowStart) return;
          bucket.inFlight -= usages[index]!.delta;
          bucket.shared = Math.max(bucket.shared, totals[index]?.total ?? 0);
          bucket.earlyAfter = Math.max(1, Math.floor((bucket.limit - bucket.shared) / 4));
        });
      } catch (error) {
        failure = error;
        // Not acknowledged: sent again with the next sync. (A call that did land but whose answer
        // was lost is then counted twice: a limit too strict for the rest of a minute is the
        // safer error.)
        batch.forEach((bucket, index) => {
          if (bucket.windowStart !== windowStart) return;
          bucket.inFlight -= usages[index]!.delta;
          bucket.pending += usages[index]!.delta;
        });
      }
    }
    if (failure !== undefined) {
      settings.onSyncFailed?.(failure, online);
      online = false;
    } else if (!online) {
      online = true;
      settings.onSyncRecovered?.();
    }
  }

  function sync(): Promise<void> {
    if (syncing !== undefined) return syncing;
    lastSyncAt = performance.now();
    syncing = syncOnce().finally(() => {
      syncing = undefined;
    });
    return syncing;
  }

  return {
    get online() {
      return online;
    },
    middleware() {
      return (ctx, next) => {
        const identity = ctx.state.apiKey as ApiKeyIdentity;
        const now = clock();
        const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_SECONDS;
        const companyBucket = bucketOf(companyBuckets, "api-company:", identity.companyId, identity.companyRateLimitPerMinute ?? settings.defaultPerMinute, windowStart);
        // A key without a limit of its own has its company's, which the company's count covers:
        // such a key needs no counter.
        const keyLimit = identity.keyRateLimitPerMinute;
        const keyBucket = keyLimit === undefined ? undefined : bucketOf(keyBuckets, "api-key:", identity.apiKeyId, keyLimit, windowStart);
        const resetSeconds = Math.max(1, Math.ceil((windowStart * 1000 + WINDOW_MS - now) / 1000));
        // The key is checked first: a key over its own limit does not use up its company's.
        if (keyBucket !== undefined && !admits(keyBucket)) {
          settings.onRefused?.("api_key");
          throw tooManyRequests("api_key", keyBucket.limit, resetSeconds);
        }
        if (!admits(companyBucket)) {
          settings.onRefused?.("company");
          throw tooManyRequests("company", companyBucket.limit, resetSeconds);
        }
        count(companyBucket);
        let closer = companyBucket;
        if (keyBucket !== undefined) {
          count(keyBucket);
          // The headers describe whichever limit is closer to refusing.
          if (remaining(keyBucket) <= remaining(companyBucket)) closer = keyBucket;
        }
        ctx.set("RateLimit-Limit", String(closer.limit));
        ctx.set("RateLimit-Remaining", String(remaining(closer)));
        ctx.set("RateLimit-Reset", String(resetSeconds));
        return next();
      };
    },
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => void sync(), settings.syncIntervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      clearTimeout(earlyTimer);
      earlyTimer = undefined;
      await syncing;
      // Not when the store is known to be down: the shutdown would wait for a call's deadline.
      if (online) await sync();
    },
    sync,
  };
}

/** The shared counters: players.AddRateLimitUsage (Postgres). */
export function playersUsageStore(players: PlayersClient): UsageStore {
  return async (windowSeconds, usages) => {
    const answer = await players.addRateLimitUsage({
      windowSeconds,
      usages: usages.map(({ key, windowStart, delta }) => ({ key, windowStart: BigInt(windowStart), delta })),
    });
    return answer.totals.map(({ key, windowStart, total }) => ({ key, windowStart: Number(windowStart), total: Number(total) }));
  };
}

type ApiRateLimitConfig = Pick<GatewayConfig, "API_RATE_LIMIT_PER_MINUTE" | "API_RATE_LIMIT_SYNC_INTERVAL_MS" | "API_RATE_LIMIT_OFFLINE_SHARE">;

/** The gateway's API-key limiter: counts synced through the players service, refusals and failed syncs in `registry`, outages logged. */
export function createPlayersApiRateLimiter(players: PlayersClient, config: ApiRateLimitConfig, logger: Logger, registry?: Registry): ApiRateLimiter {
  const refusals = registry && rateLimitRefusals(registry);
  const failures = registry && rateLimitSyncFailures(registry);
  const labels = { api_key: { limit: "api_key" }, company: { limit: "company" } } as const;
  return createApiRateLimiter(playersUsageStore(players), {
    defaultPerMinute: config.API_RATE_LIMIT_PER_MINUTE,
    syncIntervalMs: config.API_RATE_LIMIT_SYNC_INTERVAL_MS,
    offlineShare: config.API_RATE_LIMIT_OFFLINE_SHARE,
    onRefused: refusals && ((limit) => refusals.inc(labels[limit])),
    onSyncFailed: (error, first) => {
      failures?.inc();
      if (first) logger.warn({ err: error }, "API rate-limit counters unreachable: limiting on this replica's share until they answer");
    },
    onSyncRecovered: () => logger.info("API rate-limit counters reachable again"),
  });
}
