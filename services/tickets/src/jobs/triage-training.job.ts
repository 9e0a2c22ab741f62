// The triage's periodic training: every TRIAGE_TRAIN_INTERVAL_MS (a day by default), each company
// with resolved tickets in the window gets a model trained on its history, written over the old
// one in one statement (replicas load it at their next classification). Every replica runs it;
// two replicas training the same company at once each write a whole model of the same history.
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import { trainAll, type TriageContext } from "../triage/triage.service.ts";

export interface TriageTrainingJob extends Startable {
  /** One training of every company; resolves with how many models were written. Tests call it directly. */
  runOnce(now?: Date): Promise<number>;
}

export function createTriageTrainingJob(ctx: TriageContext, settings: { intervalMs: number; logger: Logger }): TriageTrainingJob {
  const runOnce = (now: Date = new Date()) => trainAll(ctx, now);
  const job = createPeriodicJob({ name: "triage training", intervalMs: settings.intervalMs, logger: settings.logger, run: async () => void (await runOnce()) });
  return { runOnce, start: job.start, stop: job.stop };
}
