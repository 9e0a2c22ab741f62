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
  };
}

export async function insertApiKey(db: Db, key: { companyId: string; name: string; keyPrefix: string; keyHash: string }): Promise<ApiKey> {
  const row = await db
    .insertInto("api_keys")
    .values({ company_id: key.companyId, name: key.name, key_prefix: key.keyPrefix, key_hash: key.keyHash, revoked_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApiKey(row);
}

export async function findLiveApiKeyByHash(db: Db, keyHash: string): Promise<ApiKey | undefined> {
  const row = await db
    .selectFrom("api_keys")
    .selectAll()
    .where("key_hash", "=", keyHash)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row && toApiKey(row);
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
