// Keeps the delivery log bounded: finished deliveries (succeeded or failed) older than
// WEBHOOK_LOG_RETENTION_DAYS are deleted, in batches, every WEBHOOK_LOG_SWEEP_INTERVAL_MS.
// Pending deliveries are never swept. Every replica may run it: batches lock with
// FOR UPDATE SKIP LOCKED, so replicas share the work instead of waiting on each other.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import type { WebhooksDatabase } from "../database.ts";
import { deleteFinishedBefore } from "../deliveries/delivery.repository.ts";

export interface LogRetentionJob extends Startable {
  /** One full sweep as of `now`; resolves with how many deliveries it deleted. Tests call it directly. */
  runOnce(now?: Date): Promise<number>;
}

const BATCH = 500;

export function createLogRetentionJob(db: Kysely<WebhooksDatabase>, settings: { retentionDays: number; intervalMs: number; logger: Logger }): LogRetentionJob {
  async function runOnce(now: Date = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - settings.retentionDays * 86_400_000);
    let total = 0;
    for (;;) {
      const deleted = await deleteFinishedBefore(db, cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) settings.logger.info({ deleted: total }, "swept old deliveries from the log");
    return total;
  }
  const job = createPeriodicJob({ name: "delivery log retention", intervalMs: settings.intervalMs, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}
