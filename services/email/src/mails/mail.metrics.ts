// support_email_attempts_total{kind, status}, support_email_attempt_duration_seconds, read at each
// scrape support_email_mails_waiting (queued or deferred: the backlog an alert watches), and
// support_email_inbound_total{status, reason} (players' answers: accepted, held, dropped and why).
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { addScrapeSource, DURATION_BUCKETS, sharedForScrape, type Registry } from "@support/metrics";
import { Counter, Histogram } from "prom-client";
import type { EmailDatabase } from "../database.ts";
import { countWaiting } from "./mail.repository.ts";
import type { MailKind, MailStatus } from "./mail.ts";

export interface MailMetrics {
  attempted(kind: MailKind, status: MailStatus, seconds: number): void;
  received(status: string, reason: string | null): void;
}

export function registerMailMetrics(registry: Registry, db: Kysely<EmailDatabase>, logger: Logger): MailMetrics {
  const attempts = new Counter({
    name: "support_email_attempts_total",
    help: "Attempts to send a mail to a player, by kind and the status after it (sent, deferred, bounced, failed)",
    labelNames: ["kind", "status"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "support_email_attempt_duration_seconds",
    help: "Duration of attempts to hand a mail to the SMTP relay",
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const inbound = new Counter({
    name: "support_email_inbound_total",
    help: "Mails received for players' tickets, by status (accepted, held, dropped) and reason (none when accepted)",
    labelNames: ["status", "reason"],
    registers: [registry],
  });
  const read = sharedForScrape(() => countWaiting(db));
  addScrapeSource(registry, { name: "support_email_mails_waiting", help: "Mails queued or deferred, waiting for an attempt" }, async () => [{ value: await read() }], {
    onError: (error: unknown) => logger.warn({ err: error }, "waiting mails not counted for metrics"),
  });
  return {
    attempted(kind, status, seconds) {
      attempts.inc({ kind, status });
      duration.observe(seconds);
    },
    received(status, reason) {
      inbound.inc({ status, reason: reason ?? "none" });
    },
  };
}
