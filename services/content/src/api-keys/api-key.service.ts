// API key use cases: a company's admins (in the settings) and operators (admin tool, tenant
// files) create, list and revoke keys, each change in the audit log with who made it; the
// gateway authenticates requests and reports, once a minute, when each key was last used.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound, validationError } from "@support/errors";
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import {
  apiKeyCreatedData, apiKeyRevokedData, auditedApiKey, displayPrefixOf, generateApiKeySecret, hashApiKey, isKeyHash, parseNewApiKey, type ApiKey, type ApiKeyUse,
  type ListedApiKey,
} from "./api-key.ts";
import { findApiKeyForUpdate, findLiveApiKeyByHash, insertApiKey, listCompanyApiKeys, markApiKeyRevoked, recordApiKeyUses } from "./api-key.repository.ts";

type Db = Kysely<ContentDatabase>;

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The only time the secret exists outside the caller's hands. */
  secret: string;
}

export async function createApiKey(db: Db, companyId: string, input: { name: unknown; rateLimitPerMinute?: unknown }, origin: ChangeOrigin): Promise<CreatedApiKey> {
  const { name, rateLimitPerMinute } = parseNewApiKey(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    const secret = generateApiKeySecret();
    const apiKey = await insertApiKey(trx, { companyId, name, keyPrefix: displayPrefixOf(secret), keyHash: hashApiKey(secret), rateLimitPerMinute, createdBy: origin.actor });
    await writeEvents(trx, [newEvent("content.api_key.created", companyId, apiKeyCreatedData(apiKey))]);
    if (origin.audit !== false) {
      await writeAudit(trx, {
        action: "api_key.created", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
        target: { type: "api_key", id: apiKey.id }, before: null, after: auditedApiKey(apiKey),
      });
    }
    return { apiKey, secret };
  });
}

/**
 * Revokes a key; revoking a revoked key changes nothing, emits nothing and records nothing.
 * Operators revoke by key id alone, so `companyId` is optional here.
 */
export async function revokeApiKey(db: Db, apiKeyId: string, origin: ChangeOrigin & { companyId?: string | undefined }): Promise<ApiKey> {
  return inTransaction(db, async (trx) => {
    const found = isUuid(apiKeyId) && (origin.companyId === undefined || isUuid(origin.companyId)) ? await findApiKeyForUpdate(trx, apiKeyId, origin.companyId) : undefined;
    if (!found) throw notFound("api key not found");
    if (found.revokedAt) return found;
    const revoked = await markApiKeyRevoked(trx, apiKeyId);
    await writeEvents(trx, [newEvent("content.api_key.revoked", revoked.companyId, apiKeyRevokedData(revoked))]);
    await writeAudit(trx, {
      action: "api_key.revoked", companyId: revoked.companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: { type: "api_key", id: revoked.id }, before: auditedApiKey(found), after: auditedApiKey(revoked),
    });
    return revoked;
  });
}

/** The company's keys (revoked ones after the live ones), never their secrets. */
export async function listApiKeys(db: Db, companyId: string): Promise<ListedApiKey[]> {
  return isUuid(companyId) ? listCompanyApiKeys(db, companyId) : [];
}

const MAX_USES_PER_REPORT = 10_000;

/** A gateway's report of its keys' last uses; a key reported twice keeps its latest use. */
export async function recordApiKeyUse(db: Db, uses: readonly ApiKeyUse[]): Promise<void> {
  if (uses.length > MAX_USES_PER_REPORT) throw validationError([{ path: "/uses", message: `at most ${MAX_USES_PER_REPORT} keys a report` }]);
  const latest = new Map<string, Date>();
  for (const use of uses) {
    if (!isUuid(use.apiKeyId) || Number.isNaN(use.lastUsedAt.getTime())) continue;
    const seen = latest.get(use.apiKeyId);
    if (seen === undefined || seen < use.lastUsedAt) latest.set(use.apiKeyId, use.lastUsedAt);
  }
  await recordApiKeyUses(db, [...latest].map(([apiKeyId, lastUsedAt]) => ({ apiKeyId, lastUsedAt })));
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
