// Content's reference data as the tickets service needs it (company settings, games, tag and
// field definitions), cached per company for a short TTL so that creating a ticket costs no
// RPC in the common case. content.* events evict a company's entries at once
// (events/content-changed.subscription.ts); the TTL bounds staleness when an event is missed.
// Concurrent misses of one entry share one call; failures are not cached.
import { isAppError, isUuid, notFound } from "@support/errors";
import { outsideCallScope } from "@support/rpc";
import { LRUCache } from "lru-cache";
import type { Definitions } from "../tickets/field-values.ts";

export interface CompanySettings {
  autoCloseWaitingAfterHours: number;
}

export interface GameInfo {
  id: string;
  languages: string[];
  /** Environment ids in creation order; API tickets are attributed to the first. */
  environmentIds: string[];
}

/** What the content service answers (implemented over Connect in clients.ts). */
export interface ContentSource {
  company(companyId: string): Promise<CompanySettings>;
  /** NOT_FOUND for another company's, a deleted or an unknown game. */
  game(companyId: string, gameId: string): Promise<GameInfo>;
  definitions(companyId: string): Promise<Definitions>;
  hasGameAccess(companyId: string, userId: string, gameId: string): Promise<boolean>;
}

export interface ContentReference {
  getCompany(companyId: string): Promise<CompanySettings>;
  /** A live game of the company; NOT_FOUND "game not found" otherwise. */
  getGame(companyId: string, gameId: string): Promise<GameInfo>;
  /** The company's tag and field definitions; `fresh` bypasses (and refreshes) the cache. */
  getDefinitions(companyId: string, options?: { fresh?: boolean }): Promise<Definitions>;
  /** Whether a user of the company may act on the game (never cached: access can be revoked). */
  hasGameAccess(companyId: string, userId: string, gameId: string): Promise<boolean>;
  evictCompany(companyId: string): void;
  clear(): void;
}

export interface ContentReferenceOptions {
  /** Longest staleness of an entry. */
  ttlMs: number;
  /** Most entries kept (three per company and one per game used); the least recently used go first. */
  maxEntries?: number;
}

type Load = () => Promise<object>;

export function createContentReference(content: ContentSource, options: ContentReferenceOptions): ContentReference {
  // Keys start with the company id so that one company's entries can be evicted together.
  const entries = new LRUCache<string, object, Load>({
    max: options.maxEntries ?? 10_000,
    ttl: options.ttlMs,
    // A fetch runs the loader it is given; lru-cache shares one in-flight fetch per key and
    // drops a rejected one. An entry evicted while its fetch runs still answers that caller,
    // it is just not kept. The load is shared, so it runs with its own timeout rather than the
    // deadline of the request that happened to start it.
    fetchMethod: (_key, _stale, { context }) => outsideCallScope(context),
    ignoreFetchAbort: true,
  });

  async function cached<T extends object>(key: string, load: () => Promise<T>, fresh = false): Promise<T> {
    return (await entries.fetch(key, { context: load, forceRefresh: fresh })) as T;
  }

  return {
    getCompany(companyId) {
      return cached(`${companyId}:company`, () => content.company(companyId));
    },

    async getGame(companyId, gameId) {
      if (!isUuid(gameId)) throw notFound("game not found");
      try {
        return await cached(`${companyId}:game:${gameId.toLowerCase()}`, () => content.game(companyId, gameId));
      } catch (error) {
        if (isAppError(error) && error.code === "not_found") throw notFound("game not found");
        throw error;
      }
    },

    getDefinitions(companyId, { fresh = false } = {}) {
      return cached(`${companyId}:definitions`, () => content.definitions(companyId), fresh);
    },

    hasGameAccess(companyId, userId, gameId) {
      return content.hasGameAccess(companyId, userId, gameId);
    },

    evictCompany(companyId) {
      for (const key of [...entries.keys()]) if (key.startsWith(`${companyId}:`)) entries.delete(key);
    },

    clear() {
      entries.clear();
    },
  };
}
