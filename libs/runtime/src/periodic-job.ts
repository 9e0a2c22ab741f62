// A background sweep that runs every `intervalMs` inside a service: never two runs at once in
// one process (the next run is scheduled when the previous one ends), a failed run (Postgres
// restarting, say) is retried sooner, with a doubling delay up to the interval, and an outage
// is logged once rather than at every attempt; stop() waits for a run in progress. Running once per item
// across replicas is the job's own business (its queries lock with `for update skip locked`).
import { backoffDelay, createFailureEpisode, type Logger } from "@support/logging";
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
  const episode = createFailureEpisode(settings.logger.child({ job: settings.name }), settings.name);

  function schedule(): void {
    if (stopped) return;
    const delay = episode.failures > 0 ? Math.min(settings.intervalMs, backoffDelay(episode.failures)) : settings.intervalMs;
    timer = setTimeout(() => {
      running = settings
        .run()
        .then(
          () => episode.succeeded(),
          (error: unknown) => episode.failed(error),
        )
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, delay);
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
