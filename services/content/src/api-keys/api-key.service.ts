// API key use cases: operators create and revoke keys; the gateway authenticates requests.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import {
  apiKeyCreatedData, apiKeyRevokedData, displayPrefixOf, generateApiKeySecret, hashApiKey, isKeyHash, parseNewApiKey, type ApiKey,
} from "./api-key.ts";
import { findApiKeyForUpdate, findLiveApiKeyByHash, insertApiKey, markApiKeyRevoked } from "./api-key.repository.ts";

type Db = Kysely<ContentDatabase>;

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

export async function createApiKey(db: Db, companyId: string, input: { name: string; rateLimitPerMinute?: number | undefined }): Promise<CreatedApiKey> {
  const { name, rateLimitPerMinute } = parseNewApiKey(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    const secret = generateApiKeySecret();
    const apiKey = await insertApiKey(trx, { companyId, name, keyPrefix: displayPrefixOf(secret), keyHash: hashApiKey(secret), rateLimitPerMinute });
    await writeEvents(trx, [newEvent("content.api_key.created", companyId, apiKeyCreatedData(apiKey))]);
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
    await writeEvents(trx, [newEvent("content.api_key.revoked", revoked.companyId, apiKeyRevokedData(revoked))]);
    return revoked;
  });
}

export interface AuthenticatedApiKey {
  companyId: string;
  apiKeyId: string;
  /** Null: the company's limit. */
  keyRateLimitPerMinute: number | null;
  /** Null: the gateway's default. */
  companyRateLimitPerMinute: number | null;
}

/**
 * The company of the live key with this hash, and the rate limits the gateway applies to it
 * (so that limiting needs no call of its own); NOT_FOUND for unknown and revoked keys alike.
 */
export async function authenticateApiKey(db: Db, keyHash: string): Promise<AuthenticatedApiKey> {
  const normalized = keyHash.toLowerCase();
  const found = isKeyHash(normalized) ? await findLiveApiKeyByHash(db, normalized) : undefined;
  if (!found) throw notFound("api key not found");
  return { companyId: found.key.companyId, apiKeyId: found.key.id, keyRateLimitPerMinute: found.key.rateLimitPerMinute, companyRateLimitPerMinute: found.companyRateLimitPerMinute };
}
