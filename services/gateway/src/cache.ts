// In-memory caches of the gateway's hot paths: API keys and per-company reference data.
// Entries expire by TTL as a safety net; content's NATS events evict them as soon as the
// data changes (events/content-changed.consumer.ts). Concurrent misses of one key share a single in-flight load.
import { LRUCache } from "lru-cache";

export interface CoalescingCacheOptions<V> {
  /** Most entries kept; the least recently used go first. */
  max: number;
  ttlMs: number;
  /** A per-value TTL (e.g. shorter for negative answers); defaults to ttlMs. */
  ttlOf?: (value: V) => number;
  /** A bound of the values' total size as well (sizeOf(value) each); a larger value is served but not kept. */
  maxSize?: { total: number; sizeOf: (value: V) => number };
}

/**
 * A TTL + LRU cache whose misses are loaded once however many callers ask at the same time.
 * A load that was overtaken by `evict`/`clear` still answers its callers but is not stored:
 * it may hold data from before the change that caused the eviction. (LRUCache's own `fetch`
 * cannot do both: a delete during a fetch aborts it and rejects its callers, unless told to
 * ignore the abort, and then it stores the stale value.)
 */
export class CoalescingCache<V extends NonNullable<unknown>> {
  readonly #entries: LRUCache<string, V>;
  readonly #inflight = new Map<string, Promise<V>>();
  readonly #ttlOf: ((value: V) => number) | undefined;

  constructor(options: CoalescingCacheOptions<V>) {
    this.#entries = new LRUCache<string, V>({
      max: options.max,
      ttl: options.ttlMs,
      ttlAutopurge: false,
      ...(options.maxSize ? { maxSize: options.maxSize.total, sizeCalculation: (value: V) => Math.max(1, options.maxSize!.sizeOf(value)) } : {}),
    });
    this.#ttlOf = options.ttlOf;
  }

  /** The cached value (synchronously, the hot path), else the shared in-flight load. */
  get(key: string, load: (key: string) => Promise<V>): V | Promise<V> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const running = this.#inflight.get(key);
    if (running !== undefined) return running;
    const pending: Promise<V> = Promise.resolve()
      .then(() => load(key))
      .then(
        (value) => {
          if (this.#inflight.get(key) === pending) {
            this.#inflight.delete(key);
            this.#entries.set(key, value, this.#ttlOf ? { ttl: this.#ttlOf(value) } : undefined);
          }
          return value;
        },
        (error: unknown) => {
          if (this.#inflight.get(key) === pending) this.#inflight.delete(key);
          throw error;
        },
      );
    this.#inflight.set(key, pending);
    return pending;
  }

  /** Drops the entry and detaches a running load from the cache. */
  evict(key: string): void {
    this.#entries.delete(key);
    this.#inflight.delete(key);
  }

  /** Drops every kept entry whose value matches (a scan: for rare changes, as a key revoked). */
  evictWhere(matches: (value: V) => boolean): void {
    // The keys first: the cache is not changed while it is being walked.
    const keys = [...this.#entries.entries()].filter(([, value]) => matches(value)).map(([key]) => key);
    for (const key of keys) this.evict(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#inflight.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The total size of the kept values (0 without a size bound). */
  get calculatedSize(): number {
    return this.#entries.calculatedSize;
  }
}

/** The reference reads served from cache, each as the serialized JSON response body. */
// UTF-8 bytes as the routes store them (routes/respond.ts); a string is sent as well.
export type ReferenceBody = Buffer | string;

export const REFERENCE_KINDS = ["games", "tags", "fields", "announcements"] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export type ReferenceCaches = Record<ReferenceKind, CoalescingCache<ReferenceBody>> & {
  /** Evicts every reference cache of one company. */
  evictCompany(companyId: string): void;
  clear(): void;
};

export const DEFAULT_REFERENCE_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * One cache per kind, each bounded by `maxCompanies` entries and by a quarter of `maxBytes` of
 * response bodies (UTF-8 bytes): a company with hundreds of fields has a large body, and the
 * entry count alone would let 10,000 such companies take hundreds of MB.
 */
export function createReferenceCaches(options: { ttlMs: number; maxCompanies?: number; maxBytes?: number }): ReferenceCaches {
  const total = Math.max(REFERENCE_KINDS.length, Math.floor((options.maxBytes ?? DEFAULT_REFERENCE_CACHE_MAX_BYTES) / REFERENCE_KINDS.length));
  const make = () =>
    new CoalescingCache<ReferenceBody>({ max: options.maxCompanies ?? 10_000, ttlMs: options.ttlMs, maxSize: { total, sizeOf: (body) => Buffer.byteLength(body) } });
  const caches = { games: make(), tags: make(), fields: make(), announcements: make() };
  return {
    ...caches,
    evictCompany(companyId) {
      for (const kind of REFERENCE_KINDS) caches[kind].evict(companyId);
    },
    clear() {
      for (const kind of REFERENCE_KINDS) caches[kind].clear();
    },
  };
}
