// The loop of a worker whose work waits in the database (webhook deliveries, mails): it claims
// what is due (the claim's own lease keeps replicas apart), runs each item with at most
// `concurrency` in flight, and claims again when a slot frees up or a full batch suggests more is
// waiting. Storing new work wakes it at once (`wake`); otherwise it looks every `pollIntervalMs`
// (retries that became due, other replicas' inserts). A failed claim (the database away) is
// logged once per outage and retried with a doubling delay up to 10 s. stop() stops claiming,
// calls `beforeDrain` (to cut the items in flight short, if the worker can) and waits for them.
import { backoffDelay, createFailureEpisode, type Logger } from "@support/logging";
import type { Startable } from "./host.ts";

export interface ClaimLoopSettings<T> {
  /** What the logs call it, e.g. "mail sender". */
  name: string;
  logger: Logger;
  concurrency: number;
  pollIntervalMs: number;
  /** Claims up to `free` due items. */
  claim(free: number): Promise<T[]>;
  /** Runs one claimed item; a failure is the worker's (`runFailed`), never the loop's. */
  run(item: T): Promise<void>;
  runFailed(error: unknown, item: T): void;
  /** At start, before the first claim (a new cancellation signal, say). */
  onStart?(): void;
  /** At stop, once no more is claimed and before waiting for the items in flight. */
  beforeDrain?(): void;
}

export interface ClaimLoop extends Startable {
  /** Claim now: new work was stored. */
  wake(): void;
  /** Whether the loop is stopped (items claimed meanwhile are given back by the worker). */
  isStopped(): boolean;
}

const MAX_RETRY_DELAY_MS = 10_000;

export function createClaimLoop<T>(settings: ClaimLoopSettings<T>): ClaimLoop {
  const inFlight = new Set<Promise<void>>();
  const episode = createFailureEpisode(settings.logger, settings.name);
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let again = false;

  async function pump(): Promise<void> {
    do {
      again = false;
      const free = settings.concurrency - inFlight.size;
      if (free <= 0 || stopped) return;
      const claimed = await settings.claim(free);
      episode.succeeded();
      for (const item of claimed) {
        const task: Promise<void> = settings
          .run(item)
          .catch((error: unknown) => settings.runFailed(error, item))
          .finally(() => {
            inFlight.delete(task);
            // A slot is free, and what waited behind this item may be due now.
            wake();
          });
        inFlight.add(task);
      }
      // A full batch: there may be more waiting.
      if (claimed.length === free) again = true;
    } while (again && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = pump()
      .catch((error: unknown) => episode.failed(error))
      .finally(() => {
        pumping = undefined;
        if (again) wake();
      });
  }

  function schedule(): void {
    if (stopped) return;
    const delay = episode.failures > 0 ? Math.min(MAX_RETRY_DELAY_MS, backoffDelay(episode.failures)) : settings.pollIntervalMs;
    timer = setTimeout(() => {
      wake();
      schedule();
    }, delay);
    timer.unref();
  }

  return {
    wake,
    isStopped: () => stopped,
    start() {
      if (!stopped) return;
      stopped = false;
      settings.onStart?.();
      wake();
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pumping;
      settings.beforeDrain?.();
      await Promise.all(inFlight);
    },
  };
}
