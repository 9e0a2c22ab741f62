// The purge of idempotency records older than IDEMPOTENCY_TTL_HOURS, every
// IDEMPOTENCY_PURGE_INTERVAL_MS. Every replica may run it: SKIP LOCKED hands each row to one.
import { makeValidator } from "envalid";
import type { Kysely } from "kysely";
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import { purgeIdempotencyKeysBatch } from "./store.ts";

/** A number above 0 (hours), or 0 and above (an interval, where 0 turns the job off). */
const positive = makeValidator<number>((input) => {
  const value = Number(input);
  if (!(value > 0)) throw new Error(`must be a number above 0: "${input}"`);
  return value;
});
const notNegative = makeValidator<number>((input) => {
  const value = Number(input);
  if (!(value >= 0)) throw new Error(`must be 0 or more: "${input}"`);
  return value;
});

/** The settings of every service that records idempotency keys. */
export const idempotencyConfigSpecs = {
  IDEMPOTENCY_TTL_HOURS: positive({ default: 24, desc: "How long an Idempotency-Key's answer is kept and replayed (at least; the purge deletes it after)" }),
  IDEMPOTENCY_PURGE_INTERVAL_MS: notNegative({ default: 600_000, desc: "Period of the purge of idempotency records older than IDEMPOTENCY_TTL_HOURS (0 disables it)" }),
};

export interface IdempotencyPurgeJob extends Startable {
  /** One full purge as of `now`; resolves with how many records it deleted. Tests call it directly. */
  runOnce(now?: Date): Promise<number>;
}

const BATCH = 1000;

export function createIdempotencyPurgeJob(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- any service's database
  settings: { ttlHours: number; intervalMs: number; logger: Logger },
): IdempotencyPurgeJob {
  async function runOnce(now: Date = new Date()): Promise<number> {
    const before = new Date(now.getTime() - settings.ttlHours * 3_600_000);
    let total = 0;
    for (;;) {
      const deleted = await purgeIdempotencyKeysBatch(db, before, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) settings.logger.info({ purged: total }, "purged idempotency records");
    return total;
  }
  const job = createPeriodicJob({ name: "idempotency purge", intervalMs: settings.intervalMs, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}

/** The purge job from a service's own settings (`idempotencyConfigSpecs`), as every service runs it. */
export function createIdempotencyPurgeJobFromConfig(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- any service's database
  config: { IDEMPOTENCY_TTL_HOURS: number; IDEMPOTENCY_PURGE_INTERVAL_MS: number },
  logger: Logger,
): IdempotencyPurgeJob {
  return createIdempotencyPurgeJob(db, { ttlHours: config.IDEMPOTENCY_TTL_HOURS, intervalMs: config.IDEMPOTENCY_PURGE_INTERVAL_MS, logger });
}
