// Queries on API keys.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { ApiKey } from "./api-key.ts";
import type { ApiKeyTable } from "./api-key.table.ts";

type Db = Kysely<ContentDatabase>;

function toApiKey(row: Selectable<ApiKeyTable>): ApiKey {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    keyPrefix: row.key_prefix,
    keyHash: row.key_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    rateLimitPerMinute: row.rate_limit_per_minute,
  };
}

export async function insertApiKey(db: Db, key: { companyId: string; name: string; keyPrefix: string; keyHash: string; rateLimitPerMinute: number | null }): Promise<ApiKey> {
  const row = await db
    .insertInto("api_keys")
    .values({ company_id: key.companyId, name: key.name, key_prefix: key.keyPrefix, key_hash: key.keyHash, revoked_at: null, rate_limit_per_minute: key.rateLimitPerMinute })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApiKey(row);
}

/** The live key with this hash, and its company's API rate limit (one query: authentication runs often). */
export async function findLiveApiKeyByHash(db: Db, keyHash: string): Promise<{ key: ApiKey; companyRateLimitPerMinute: number | null } | undefined> {
  const row = await db
    .selectFrom("api_keys")
    .innerJoin("companies", "companies.id", "api_keys.company_id")
    .selectAll("api_keys")
    .select("companies.api_rate_limit_per_minute as company_rate_limit_per_minute")
    .where("api_keys.key_hash", "=", keyHash)
    .where("api_keys.revoked_at", "is", null)
    .executeTakeFirst();
  return row && { key: toApiKey(row), companyRateLimitPerMinute: row.company_rate_limit_per_minute };
}

/** Locks the key's row so that two revocations do not both emit an event. */
export async function findApiKeyForUpdate(db: Db, apiKeyId: string, companyId?: string): Promise<ApiKey | undefined> {
  let query = db.selectFrom("api_keys").selectAll().where("id", "=", apiKeyId);
  if (companyId !== undefined) query = query.where("company_id", "=", companyId);
  const row = await query.forUpdate().executeTakeFirst();
  return row && toApiKey(row);
}

export async function markApiKeyRevoked(db: Db, apiKeyId: string): Promise<ApiKey> {
  const row = await db
    .updateTable("api_keys")
    .set({ revoked_at: new Date() })
    .where("id", "=", apiKeyId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApiKey(row);
}
