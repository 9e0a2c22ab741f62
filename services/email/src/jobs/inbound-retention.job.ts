// Forgets the held and dropped mails (the sender's address, a held mail's text) after
// EMAIL_INBOUND_RETENTION_DAYS, hourly; the rate limits look back one hour only. Accepted mails
// stay: their Message-IDs thread the ticket's next mails, and they go with the ticket's erasure.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import type { EmailDatabase } from "../database.ts";
import { deleteUnacceptedBefore } from "../inbound/inbound-mail.repository.ts";

export interface InboundRetentionJob extends Startable {
  runOnce(now?: Date): Promise<number>;
}

const HOUR_MS = 3_600_000;

export function createInboundRetentionJob(db: Kysely<EmailDatabase>, settings: { retentionDays: number; logger: Logger }): InboundRetentionJob {
  async function runOnce(now = new Date()): Promise<number> {
    const deleted = await deleteUnacceptedBefore(db, new Date(now.getTime() - settings.retentionDays * 24 * HOUR_MS));
    if (deleted > 0) settings.logger.info({ deleted }, "forgot old held and dropped mails");
    return deleted;
  }
  const job = createPeriodicJob({ name: "inbound mail retention", intervalMs: HOUR_MS, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}
