// support_deletions_pending and support_deletions_overdue, counted at each scrape: the backlog of
// scheduled player deletions, and the part of it that is more than an hour late (an alert).
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { addScrapeSource, sharedForScrape, type Registry } from "@support/metrics";
import type { PlayersDatabase } from "../database.ts";
import { countPendingDeletions } from "./deletion.repository.ts";

/** A scheduled deletion counts as overdue once its due time passed more than this long ago. */
export const DELETION_OVERDUE_AFTER_MS = 3_600_000;

export function registerDeletionMetrics(registry: Registry, db: Kysely<PlayersDatabase>, logger: Logger): void {
  const read = sharedForScrape(() => countPendingDeletions(db, new Date(), DELETION_OVERDUE_AFTER_MS));
  const options = { onError: (error: unknown) => logger.warn({ err: error }, "player deletions not counted for metrics") };
  addScrapeSource(
    registry,
    { name: "support_deletions_pending", help: "Scheduled player deletions not done yet (waiting or running)" },
    async () => [{ value: (await read()).pending }],
    options,
  );
  addScrapeSource(
    registry,
    { name: "support_deletions_overdue", help: "Scheduled player deletions whose due time passed more than an hour ago and not done" },
    async () => [{ value: (await read()).overdue }],
    options,
  );
}
