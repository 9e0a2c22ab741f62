// Content's reference data as the tickets service needs it (company settings, games, tag and
// field definitions), cached per company for a short TTL so that creating a ticket costs no
// RPC in the common case. content.* events evict a company's entries at once
// (events/content-changed.subscription.ts); the TTL bounds staleness when an event is missed.
// Concurrent misses share one call; failures are not cached.
import { connectToAppError } from "@support/rpc";
import { notFound } from "@support/errors";
import type { ContentClient } from "../clients.ts";
import type { Definitions, FieldType } from "../tickets/field-values.ts";
import { isUuid } from "../tickets/ticket.ts";

export interface CompanySettings {
  autoCloseWaitingAfterHours: number;
}

export interface GameInfo {
  id: string;
  languages: string[];
  /** Environment ids in creation order; API tickets are attributed to the first. */
  environmentIds: string[];
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

interface Entry<T> {
  expiresAt: number;
  value: Promise<T>;
}

export function createContentReference(content: ContentClient, ttlMs: number, clock: () => number = Date.now): ContentReference {
  // Keys start with the company id so that one company's entries can be evicted together.
  const entries = new Map<string, Entry<unknown>>();

  function cached<T>(key: string, load: () => Promise<T>, fresh = false): Promise<T> {
    const found = entries.get(key) as Entry<T> | undefined;
    if (!fresh && found && found.expiresAt > clock()) return found.value;
    const value = load();
    const entry = { expiresAt: clock() + ttlMs, value };
    entries.set(key, entry);
    value.catch(() => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    return value;
  }

  async function call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw connectToAppError(error);
    }
  }

  return {
    getCompany(companyId) {
      return cached(`${companyId}:company`, async () => {
        const { company } = await call(() => content.getCompany({ companyId }));
        if (!company) throw new Error("content returned no company");
        return { autoCloseWaitingAfterHours: company.autoCloseWaitingAfterHours };
      });
    },

    async getGame(companyId, gameId) {
      if (!isUuid(gameId)) throw notFound("game not found");
      try {
        return await cached(`${companyId}:game:${gameId.toLowerCase()}`, async () => {
          const { game, environments } = await call(() => content.getGame({ companyId, gameId }));
          if (!game) throw new Error("content returned no game");
          return { id: game.id, languages: game.languages, environmentIds: environments.map((e) => e.id) };
        });
      } catch (error) {
        if ((error as { code?: string }).code === "not_found") throw notFound("game not found");
        throw error;
      }
    },

    getDefinitions(companyId, options = {}) {
      return cached(
        `${companyId}:definitions`,
        async () => {
          const [{ tags }, { fields }] = await Promise.all([
            call(() => content.listTags({ companyId })),
            call(() => content.listFields({ companyId })),
          ]);
          return {
            tags: tags.map((tag) => ({ gameId: tag.gameId ?? null, name: tag.name })),
            fields: fields.map((field) => ({ gameId: field.gameId ?? null, key: field.key, type: field.type as FieldType, options: field.options })),
          };
        },
        options.fresh,
      );
    },

    async hasGameAccess(companyId, userId, gameId) {
      const { hasAccess } = await call(() => content.checkUserAccess({ companyId, userId, gameId }));
      return hasAccess;
    },

    evictCompany(companyId) {
      for (const key of entries.keys()) if (key.startsWith(`${companyId}:`)) entries.delete(key);
    },

    clear() {
      entries.clear();
    },
  };
}
