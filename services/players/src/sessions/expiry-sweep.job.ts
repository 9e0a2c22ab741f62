// Deletes what has expired: support sessions past their expiry (no longer usable as
// credentials, and they hold player data) and rate-limit counters of ended windows. Every
// replica may sweep: the deletes are idempotent.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { Startable } from "@support/runtime";
import type { PlayersDatabase } from "../database.ts";
import { deleteEndedWindows } from "../rate-limits/rate-limit.repository.ts";
import { deleteExpiredSessions } from "./session.repository.ts";

export interface ExpirySweep extends Startable {
  /** One sweep; resolves with what was deleted. Tests call it directly. */
  runOnce(): Promise<{ sessions: number; rateLimitWindows: number }>;
}

export function createExpirySweep(db: Kysely<PlayersDatabase>, settings: { intervalMs: number; logger: Logger }): ExpirySweep {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  async function runOnce() {
    const sessions = await deleteExpiredSessions(db);
    const rateLimitWindows = await deleteEndedWindows(db);
    if (sessions > 0 || rateLimitWindows > 0) settings.logger.debug({ sessions, rateLimitWindows }, "deleted expired sessions and rate-limit windows");
    return { sessions, rateLimitWindows };
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runOnce()
        .catch((error: unknown) => settings.logger.warn({ err: error }, "expiry sweep failed; retrying next time"))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, settings.intervalMs);
    timer.unref();
  }

  return {
    runOnce,
    start() {
      if (settings.intervalMs <= 0 || !stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
