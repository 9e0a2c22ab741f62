// The sender. Every replica runs one: it claims due mails (queued, or deferred and due again),
// sends them through the relay with at most EMAIL_CONCURRENCY in flight, and records each
// outcome (sent, deferred to the next slot of EMAIL_RETRY_SCHEDULE, bounced, failed). All
// state is in the database: a replica that dies mid-attempt leaves a claim that expires, and
// another replica sends that mail again (at least once; the same Message-ID lets the player's
// mail system drop the copy). New mails wake it at once; otherwise it looks every
// EMAIL_POLL_INTERVAL_MS (retries that became due, other replicas' mails).
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { MailNotSent, type Mailer } from "@support/mail";
import { createClaimLoop, type ClaimLoop, type Startable } from "@support/runtime";
import type { EmailDatabase } from "../database.ts";
import type { MailMetrics } from "../mails/mail.metrics.ts";
import { claimDue, recordAttempt, releaseClaim } from "../mails/mail.repository.ts";
import { afterAttempt, type AttemptOutcome, type Mail } from "../mails/mail.ts";

export interface MailDeliverySettings {
  db: Kysely<EmailDatabase>;
  mailer: Mailer;
  logger: Logger;
  metrics?: MailMetrics;
  concurrency: number;
  pollIntervalMs: number;
  /** Seconds before each retry; its length is the number of retries. */
  retrySchedule: number[];
  /** How long one attempt may take (the mailer's timeouts), for the claim's lease. */
  attemptTimeoutMs: number;
}

export interface MailDeliveryJob extends Startable {
  /** Look for due mails now (new ones were queued). */
  wake(): void;
  /** Sends every mail due now and waits for the outcomes (tests, operators). */
  runOnce(): Promise<void>;
}

export function createMailDeliveryJob(settings: MailDeliverySettings): MailDeliveryJob {
  const { db, logger } = settings;
  // The attempt's timeouts (connection, greeting, socket) plus as much again for the recording.
  const leaseMs = 2 * settings.attemptTimeoutMs + 5_000;

  /** One attempt at a claimed mail; `cancelled`: the job stopped meanwhile, so the claim is given back untried. */
  async function attempt(mail: Mail, lockedUntil: Date, cancelled: () => boolean): Promise<void> {
    if (cancelled()) {
      await releaseClaim(db, mail.id, lockedUntil);
      return;
    }
    const started = Date.now();
    let outcome: AttemptOutcome;
    let failure: unknown;
    try {
      const sent = await settings.mailer.send({
        to: mail.toAddress,
        fromName: mail.fromName,
        ...(mail.fromAddress === null ? {} : { fromAddress: mail.fromAddress }),
        subject: mail.subject,
        text: mail.textBody,
        html: mail.htmlBody,
        messageId: mail.messageId,
        references: mail.references,
        headers: mail.headers,
        ...(mail.replyTo === null ? {} : { replyTo: mail.replyTo }),
      });
      outcome = { sent: true, messageId: sent.messageId };
    } catch (error) {
      failure = error instanceof MailNotSent ? error.cause : error;
      // Without SMTP_URL the mailer refuses every mail: it waits, deferred, for a relay.
      outcome = error instanceof MailNotSent ? { sent: false, permanent: error.permanent, reason: error.reason } : { sent: false, permanent: false, reason: (error as Error).message };
    }
    const now = new Date();
    const next = afterAttempt(mail, outcome, settings.retrySchedule, now);
    const recorded = await recordAttempt(db, mail.id, lockedUntil, { ...next, lastAttemptAt: now });
    settings.metrics?.attempted(mail.kind, next.status, (now.getTime() - started) / 1000);
    if (recorded && !outcome.sent) logger.warn({ err: failure, mailId: mail.id, ticketId: mail.ticketId, status: next.status, attempts: next.attempts, reason: outcome.reason }, "mail not sent");
  }

  const loop: ClaimLoop = createClaimLoop<{ mail: Mail; lockedUntil: Date }>({
    name: "mail sender",
    logger,
    concurrency: settings.concurrency,
    pollIntervalMs: settings.pollIntervalMs,
    async claim(free) {
      const now = new Date();
      const lockedUntil = new Date(now.getTime() + leaseMs);
      return (await claimDue(db, free, now, lockedUntil)).map((mail) => ({ mail, lockedUntil }));
    },
    run: ({ mail, lockedUntil }): Promise<void> => attempt(mail, lockedUntil, () => loop.isStopped()),
    runFailed: (error, { mail }) => logger.error({ err: error, mailId: mail.id }, "mail attempt not recorded; sent again when its claim expires"),
    // Attempts under way finish (an SMTP transaction is short and cannot be taken back).
  });

  return {
    wake: loop.wake,
    start: loop.start,
    stop: loop.stop,
    async runOnce() {
      // One pass over what is due now, apart from the running loop: a mail deferred during the
      // pass is due later than `now`, so it waits for the next pass.
      const now = new Date();
      for (;;) {
        const lockedUntil = new Date(Date.now() + leaseMs);
        const claimed = await claimDue(db, settings.concurrency, now, lockedUntil);
        if (claimed.length === 0) return;
        await Promise.all(claimed.map((mail) => attempt(mail, lockedUntil, () => false)));
      }
    },
  };
}
