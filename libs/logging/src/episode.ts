// Logs an outage once, not once per retry: the first failure of a stretch of failures is a
// warning, the following ones are debug lines, and the first success after them says how long
// it lasted. Background loops (outbox relay, consumers, sweeps) retry every few seconds while
// Postgres or NATS is down; one line per attempt would bury everything else.
import type { Logger } from "pino";

export interface FailureEpisode {
  /** Reports a failed attempt; only the first of an episode is logged as a warning. */
  failed(error: unknown, fields?: Record<string, unknown>): void;
  /** Reports a successful attempt; ends the episode (logged once) if one was running. */
  succeeded(): void;
  /** Failed attempts in the current episode (0 when healthy). */
  readonly failures: number;
}

export function createFailureEpisode(logger: Logger, what: string): FailureEpisode {
  let failures = 0;
  let since = 0;
  return {
    failed(error, fields = {}) {
      failures += 1;
      if (failures === 1) {
        since = Date.now();
        logger.warn({ err: error, ...fields }, `${what} failed; retrying with backoff`);
      } else {
        logger.debug({ err: error, failures, ...fields }, `${what} failed again`);
      }
    },
    succeeded() {
      if (failures === 0) return;
      logger.info({ failures, downMs: Date.now() - since }, `${what} recovered`);
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}

/** Delay before the next attempt after `failures` failures in a row: doubling from `baseMs`, capped. */
export function backoffDelay(failures: number, baseMs = 500, maxMs = 30_000): number {
  if (failures <= 0) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 16));
}
