// The auto-close sweep: every AUTO_CLOSE_INTERVAL_MS, each company's waiting tickets
// that heard nothing from the player for the company's autoCloseWaitingAfterHours are closed
// as auto_closed. All state is in the database (waiting_since, last_player_message_at), so
// the job survives restarts; every replica may sweep, and the per-ticket SKIP LOCKED lock
// plus the re-check under it close each ticket exactly once.
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import type { TicketsContext } from "../context.ts";
import { companiesWithWaitingTickets } from "../tickets/ticket.repository.ts";
import { autoCloseTicket, dueForAutoClose } from "../tickets/ticket.service.ts";

export interface AutoCloseJob extends Startable {
  /** One sweep as of `now`; resolves with the number of tickets closed. Tests call it directly. */
  runOnce(now?: Date): Promise<number>;
}

const BATCH = 200;

export function createAutoCloseJob(ctx: TicketsContext, settings: { intervalMs: number; logger: Logger }): AutoCloseJob {
  async function sweepCompany(companyId: string, now: Date): Promise<number> {
    const { autoCloseWaitingAfterHours: hours } = await ctx.reference.getCompany(companyId);
    let closed = 0;
    for (;;) {
      const due = await dueForAutoClose(ctx, companyId, hours, now, BATCH);
      let closedNow = 0;
      for (const ticketId of due) if (await autoCloseTicket(ctx, ticketId, hours, now)) closedNow += 1;
      closed += closedNow;
      // A batch where nothing could be closed is held by others: leave it to the next sweep.
      if (due.length < BATCH || closedNow === 0) return closed;
    }
  }

  async function runOnce(now: Date = new Date()): Promise<number> {
    let closed = 0;
    for (const companyId of await companiesWithWaitingTickets(ctx.db)) {
      try {
        closed += await sweepCompany(companyId, now);
      } catch (error) {
        // One company's failure (content unavailable, say) must not stop the others.
        settings.logger.warn({ err: error, companyId }, "auto-close sweep failed for a company; retrying next time");
      }
    }
    if (closed > 0) settings.logger.info({ closed }, "auto-closed waiting tickets");
    return closed;
  }

  const job = createPeriodicJob({ name: "auto-close sweep", intervalMs: settings.intervalMs, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}
