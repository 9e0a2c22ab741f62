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
    this.#entries = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs, ttlAutopurge: false });
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

  clear(): void {
    this.#entries.clear();
    this.#inflight.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The reference reads served from cache, each as the serialized JSON response body. */
export const REFERENCE_KINDS = ["games", "tags", "fields", "announcements"] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export type ReferenceCaches = Record<ReferenceKind, CoalescingCache<string>> & {
  /** Evicts every reference cache of one company. */
  evictCompany(companyId: string): void;
  clear(): void;
};

export function createReferenceCaches(options: { ttlMs: number; maxCompanies?: number }): ReferenceCaches {
  const make = () => new CoalescingCache<string>({ max: options.maxCompanies ?? 10_000, ttlMs: options.ttlMs });
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
