// Deletes what has expired: support sessions past their expiry (no longer usable as
// credentials, and they hold player data) and rate-limit counters of ended windows. Every
// replica may sweep: the deletes are idempotent.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import type { PlayersDatabase } from "../database.ts";
import { deleteEndedWindows } from "../rate-limits/rate-limit.repository.ts";
import { deleteExpiredSessions } from "../sessions/session.repository.ts";

export interface ExpirySweepJob extends Startable {
  /** One sweep; resolves with what was deleted. Tests call it directly. */
  runOnce(): Promise<{ sessions: number; rateLimitWindows: number }>;
}

export function createExpirySweepJob(db: Kysely<PlayersDatabase>, settings: { intervalMs: number; logger: Logger }): ExpirySweepJob {
  async function runOnce() {
    const sessions = await deleteExpiredSessions(db);
    const rateLimitWindows = await deleteEndedWindows(db);
    if (sessions > 0 || rateLimitWindows > 0) settings.logger.debug({ sessions, rateLimitWindows }, "deleted expired sessions and rate-limit windows");
    return { sessions, rateLimitWindows };
  }

  const job = createPeriodicJob({ name: "expiry sweep", intervalMs: settings.intervalMs, logger: settings.logger, run: runOnce });
  return { runOnce, start: job.start, stop: job.stop };
}
