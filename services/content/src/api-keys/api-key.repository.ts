// Queries on API keys.
import { sql, type Kysely, type Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { ApiKey, ApiKeyUse, ListedApiKey } from "./api-key.ts";
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
    createdBy: row.created_by,
    lastUsedAt: row.last_used_at,
  };
}

export async function insertApiKey(
  db: Db,
  key: { companyId: string; name: string; keyPrefix: string; keyHash: string; rateLimitPerMinute: number | null; createdBy: { type: string; id: string | null } },
): Promise<ApiKey> {
  const row = await db
    .insertInto("api_keys")
    .values({
      company_id: key.companyId, name: key.name, key_prefix: key.keyPrefix, key_hash: key.keyHash, revoked_at: null, rate_limit_per_minute: key.rateLimitPerMinute,
      created_by: JSON.stringify(key.createdBy),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApiKey(row);
}

/** The company's keys, live ones first, then newest first, with the name of the user who created each. */
export async function listCompanyApiKeys(db: Db, companyId: string): Promise<ListedApiKey[]> {
  const rows = await db
    .selectFrom("api_keys")
    .leftJoin("users", (join) => join.on(sql`users.id::text`, "=", sql`api_keys.created_by->>'id'`).onRef("users.company_id", "=", "api_keys.company_id"))
    .selectAll("api_keys")
    .select("users.name as created_by_name")
    .where("api_keys.company_id", "=", companyId)
    .orderBy(sql`api_keys.revoked_at is not null`)
    .orderBy("api_keys.created_at", "desc")
    .orderBy("api_keys.id", "desc")
    .execute();
  return rows.map((row) => ({ ...toApiKey(row), createdByName: row.created_by_name }));
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

/** Moves each key's last use forward (never back: reports of several gateways arrive in any order). */
export async function recordApiKeyUses(db: Db, uses: readonly ApiKeyUse[]): Promise<void> {
  if (uses.length === 0) return;
  await sql`
    update api_keys set last_used_at = greatest(api_keys.last_used_at, use.at)
    from unnest(${uses.map((use) => use.apiKeyId)}::uuid[], ${uses.map((use) => use.lastUsedAt.toISOString())}::timestamptz[]) as use(id, at)
    where api_keys.id = use.id`.execute(db);
}
