// API key use cases: operators create and revoke keys; the gateway authenticates requests.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import {
  apiKeyEventData, displayPrefixOf, generateApiKeySecret, hashApiKey, isKeyHash, parseApiKeyName, type ApiKey,
} from "./api-key.ts";
import { findApiKeyForUpdate, findLiveApiKeyByHash, insertApiKey, markApiKeyRevoked } from "./api-key.repository.ts";

type Db = Kysely<ContentDatabase>;

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

export async function createApiKey(db: Db, companyId: string, input: { name: string }): Promise<CreatedApiKey> {
  const name = parseApiKeyName(input.name);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    const secret = generateApiKeySecret();
    const apiKey = await insertApiKey(trx, { companyId, name, keyPrefix: displayPrefixOf(secret), keyHash: hashApiKey(secret) });
    await writeEvents(trx, [{ type: "content.api_key.created", companyId, data: apiKeyEventData(apiKey) }]);
    return { apiKey, secret };
  });
}

/**
 * Revokes a key; revoking a revoked key changes nothing and emits nothing. Operators revoke
 * by key id alone, so `companyId` is optional here.
 */
export async function revokeApiKey(db: Db, apiKeyId: string, companyId?: string): Promise<ApiKey> {
  return inTransaction(db, async (trx) => {
    const found = isUuid(apiKeyId) ? await findApiKeyForUpdate(trx, apiKeyId, companyId) : undefined;
    if (!found) throw notFound("api key not found");
    if (found.revokedAt) return found;
    const revoked = await markApiKeyRevoked(trx, apiKeyId);
    await writeEvents(trx, [{ type: "content.api_key.revoked", companyId: revoked.companyId, data: apiKeyEventData(revoked) }]);
    return revoked;
  });
}

/** The company of the live key with this hash; NOT_FOUND for unknown and revoked keys alike. */
export async function authenticateApiKey(db: Db, keyHash: string): Promise<{ companyId: string; apiKeyId: string }> {
  const normalized = keyHash.toLowerCase();
  const key = isKeyHash(normalized) ? await findLiveApiKeyByHash(db, normalized) : undefined;
  if (!key) throw notFound("api key not found");
  return { companyId: key.companyId, apiKeyId: key.id };
}
