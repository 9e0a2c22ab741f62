// What applying a tenant file creates, as the admin tool prints it, and what content records of
// it so that the same file applied again converges on the same company.
import type { TenantReport } from "./tenant-report.ts";

export interface AppliedTenant {
  companyId: string;
  /** In the order of the file; `secret` only when this application created the key. */
  apiKeys: { name: string; apiKeyId: string; secret?: string }[];
  games: {
    ref: string;
    gameId: string;
    environments: { ref: string; environmentId: string; token: string }[];
    /** Absent in records of files applied before collectors existed. */
    collectors?: { ref: string; collectorId: string }[];
  }[];
  users: { ref: string; userId: string }[];
  /** True when the file (its digest) had been applied before and nothing was created. */
  alreadyApplied: boolean;
  /** What the application did (or, in a dry run, would do), object by object; absent when the digest was applied before. */
  report?: TenantReport;
}

/** The record of an application: its ids, never a secret (API keys are stored as hashes only). */
export type RecordedTenant = Omit<AppliedTenant, "alreadyApplied">;

const digestPattern = /^[0-9a-f]{64}$/;

/** A digest is the lower-case hex SHA-256 of the file's canonical JSON. */
export function isTenantDigest(value: string): boolean {
  return digestPattern.test(value);
}

export function recordOf(applied: AppliedTenant): RecordedTenant {
  return {
    companyId: applied.companyId,
    apiKeys: applied.apiKeys.map(({ name, apiKeyId }) => ({ name, apiKeyId })),
    games: applied.games,
    users: applied.users,
  };
}
