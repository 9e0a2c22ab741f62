// Sets away, for routing, the available users whose consoles went quiet (closed without signing
// out): see awayQuietAgents. Every replica may sweep: each change is made under the user's row
// lock and only once.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import type { ContentDatabase } from "../database.ts";
import { awayQuietAgents } from "./routing.service.ts";

export interface AwayJob extends Startable {
  /** One sweep; resolves with how many users went away. */
  runOnce(): Promise<number>;
}

export function createAwayJob(db: Kysely<ContentDatabase>, settings: { intervalMs: number; awayAfterSeconds: number; logger: Logger }): AwayJob {
  async function runOnce() {
    if (settings.awayAfterSeconds <= 0) return 0;
    const away = await awayQuietAgents(db, settings.awayAfterSeconds * 1000);
    if (away > 0) settings.logger.info({ away }, "set away users whose consoles went quiet");
    return away;
  }
  const job = createPeriodicJob({ name: "away sweep", intervalMs: settings.intervalMs, logger: settings.logger, run: runOnce });
  return { runOnce, start: job.start, stop: job.stop };
}
