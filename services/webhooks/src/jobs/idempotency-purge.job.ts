// Deletes the answers recorded for Idempotency-Keys once they are IDEMPOTENCY_TTL_HOURS old,
// every IDEMPOTENCY_PURGE_INTERVAL_MS (see @support/idempotency).
import type { Kysely } from "@support/db";
import { createIdempotencyPurgeJob as createPurgeJob, type IdempotencyPurgeJob } from "@support/idempotency";
import type { Logger } from "@support/logging";

export type { IdempotencyPurgeJob };

export function createIdempotencyPurgeJob(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- the service's database
  config: { IDEMPOTENCY_TTL_HOURS: number; IDEMPOTENCY_PURGE_INTERVAL_MS: number },
  logger: Logger,
): IdempotencyPurgeJob {
  return createPurgeJob(db, { ttlHours: config.IDEMPOTENCY_TTL_HOURS, intervalMs: config.IDEMPOTENCY_PURGE_INTERVAL_MS, logger });
}
