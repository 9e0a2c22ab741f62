// The sweep of time rules ("waiting for 48 h without a player reply"): every
// RULES_SWEEP_INTERVAL_MS, each enabled time rule runs on the open tickets of its company that
// have been in its status for its hours with no player message since they entered it. All state
// is in the database (status changes, player messages, runs), so the sweep survives restarts;
// every replica may sweep: a run's id is derived from the rule, the ticket and the entry into the
// status, checked under the ticket's row lock, so each rule runs once per ticket per entry.
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import { dueForTimeRule, listEnabledTimeRules } from "../rules/rule.repository.ts";
import { runTimeRule, type RulesContext } from "../rules/rule.service.ts";

export interface RulesSweepJob extends Startable {
  /** One sweep as of `now`; resolves with the number of runs that applied actions. Tests call it directly. */
  runOnce(now?: Date): Promise<number>;
}

/** Most tickets one rule handles per sweep: the rest wait for the next sweep. */
const BATCH = 200;
const HOUR = 3_600_000;

export function createRulesSweepJob(ctx: RulesContext, settings: { intervalMs: number; logger: Logger }): RulesSweepJob {
  async function runOnce(now: Date = new Date()): Promise<number> {
    let applied = 0;
    for (const rule of await listEnabledTimeRules(ctx.db)) {
      if (rule.trigger.type !== "time") continue;
      try {
        const due = await dueForTimeRule(ctx.db, rule, rule.trigger.status, new Date(now.getTime() - rule.trigger.hours * HOUR), BATCH);
        for (const { ticketId, enteredAt } of due) applied += await runTimeRule(ctx, rule, ticketId, enteredAt);
      } catch (error) {
        // One rule's failure (content unavailable, say) must not stop the others.
        settings.logger.warn({ err: error, ruleId: rule.id, companyId: rule.companyId }, "time rule sweep failed; retrying next time");
      }
    }
    if (applied > 0) settings.logger.info({ applied }, "time rules applied");
    return applied;
  }

  const job = createPeriodicJob({ name: "rules sweep", intervalMs: settings.intervalMs, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}
