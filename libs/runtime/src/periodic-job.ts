// A background sweep that runs every `intervalMs` inside a service: never two runs at once in
// one process (the next run is scheduled when the previous one ends), a failed run is logged
// and retried at the next tick, and stop() waits for a run in progress. Running once per item
// across replicas is the job's own business (its queries lock with `for update skip locked`).
import type { Logger } from "@support/logging";
import type { Startable } from "./host.ts";

export interface PeriodicJobSettings {
  /** What the logs call it, e.g. "attachment sweep". */
  name: string;
  /** 0 or less disables the schedule (runOnce still works, for tests and operators). */
  intervalMs: number;
  logger: Logger;
  run: () => Promise<unknown>;
}

export function createPeriodicJob(settings: PeriodicJobSettings): Startable {
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = settings
        .run()
        .then(
          () => undefined,
          (error: unknown) => settings.logger.warn({ err: error, job: settings.name }, `${settings.name} failed; retrying next time`),
        )
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, settings.intervalMs);
    // A pending tick alone must not keep the process alive.
    timer.unref();
  }

  return {
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
