// The sweep of unused uploads (UNUSED_ATTACHMENT_TTL_HOURS after their creation, never claimed
// by a ticket) and of erased attachments' tombstones, every ATTACHMENT_SWEEP_INTERVAL_MS.
// All state is in the database, so the job survives restarts; every replica may sweep, and
// FOR UPDATE SKIP LOCKED hands each attachment to exactly one of them.
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import { sweepTombstonesBatch, sweepUnusedBatch, type MediaContext } from "../attachments/attachment.service.ts";

export interface AttachmentSweepJob extends Startable {
  /** One full sweep as of `now`; resolves with what it deleted. Tests call it directly. */
  runOnce(now?: Date): Promise<{ unused: number; tombstones: number }>;
}

const BATCH = 100;

export function createAttachmentSweepJob(ctx: MediaContext, settings: { intervalMs: number; logger: Logger }): AttachmentSweepJob {
  async function drain(batch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await batch();
      total += deleted;
      // A short batch: nothing more is due, or the rest is held by another replica.
      if (deleted < BATCH) return total;
    }
  }

  async function runOnce(now: Date = new Date()) {
    const unused = await drain(() => sweepUnusedBatch(ctx, now, BATCH));
    const tombstones = await drain(() => sweepTombstonesBatch(ctx, now, BATCH));
    if (unused + tombstones > 0) settings.logger.info({ unused, tombstones }, "swept attachments");
    return { unused, tombstones };
  }

  const job = createPeriodicJob({ name: "attachment sweep", intervalMs: settings.intervalMs, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}
