// API keys: 32 random bytes shown once at creation; only their SHA-256 is stored, so a
// leaked database does not leak usable keys. The gateway hashes the presented key the same way.
import { createHash, randomBytes } from "node:crypto";
import { requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";
import { optionalRateLimit } from "../companies/company.ts";
import type { EventData } from "@support/events";

export interface ApiKey {
  id: string;
  companyId: string;
  name: string;
  /** The first characters of the secret, enough to recognise a key in a list; not secret. */
  keyPrefix: string;
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** Requests per minute of this key; null: the company's limit. */
  rateLimitPerMinute: number | null;
  /** Who created it; null only for keys whose creator was never recorded. */
  createdBy: { type: string; id: string | null } | null;
  /** The last request it authenticated, to the minute; null: never used. */
  lastUsedAt: Date | null;
}

/** A key as the settings list it: with its creator's name (null for an operator or a removed user). */
export interface ListedApiKey extends ApiKey {
  createdByName: string | null;
}

/** One gateway's report: the key's last request it authenticated. */
export interface ApiKeyUse {
  apiKeyId: string;
  lastUsedAt: Date;
}

export const API_KEY_PREFIX = "psk_";
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** Lower-case hex SHA-256 of the whole key as presented in `Authorization: Bearer <key>`. */
export function hashApiKey(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export function displayPrefixOf(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

const sha256Hex = /^[0-9a-f]{64}$/;

export function isKeyHash(value: string): boolean {
  return sha256Hex.test(value);
}

/** A new key's name and its optional rate limit (requests per minute; absent: the company's). */
export function parseNewApiKey(input: { name: unknown; rateLimitPerMinute?: unknown }): { name: string; rateLimitPerMinute: number | null } {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues, 100);
  const rateLimitPerMinute = optionalRateLimit(input.rateLimitPerMinute, "/rateLimitPerMinute", issues);
  throwIfInvalid(issues);
  return { name, rateLimitPerMinute };
}

/** The key as its events carry it: ids and the hash (gateways evict cached keys by it), never the secret. */
function eventFields(key: ApiKey) {
  return { apiKeyId: key.id, name: key.name, keyPrefix: key.keyPrefix, keyHash: key.keyHash, createdAt: key.createdAt.toISOString() };
}

export function apiKeyCreatedData(key: ApiKey): EventData<"content.api_key.created"> {
  return { ...eventFields(key), revokedAt: null };
}

export function apiKeyRevokedData(key: ApiKey): EventData<"content.api_key.revoked"> {
  if (!key.revokedAt) throw new Error("the API key is not revoked");
  return { ...eventFields(key), revokedAt: key.revokedAt.toISOString() };
}

/** The key's settings as the audit log keeps them before and after a change (never the secret or its hash). */
export function auditedApiKey(key: ApiKey): Record<string, unknown> {
  return { name: key.name, keyPrefix: key.keyPrefix, rateLimitPerMinute: key.rateLimitPerMinute, revokedAt: key.revokedAt?.toISOString() ?? null };
}
