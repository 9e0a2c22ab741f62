// Collector use cases: operators define a game's collectors (through a tenant file); the
// gateway reads them to show the contact form and to check a player's answers.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { requireLiveGame } from "../games/game.service.ts";
import { collectorEventData, parseNewCollector, type Collector, type NewCollectorInput } from "./collector.ts";
import { findLiveCollector, insertCollector, listLiveCollectors } from "./collector.repository.ts";

type Db = Kysely<ContentDatabase>;

export async function createCollector(db: Db, companyId: string, gameId: string, input: NewCollectorInput): Promise<Collector> {
  const values = parseNewCollector(input);
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const collector = await uniqueOrConflict(
      insertCollector(trx, companyId, gameId, values),
      values.contactForm ? `the game already has a collector ${values.ref} or a contact form` : `the game already has a collector ${values.ref}`,
    );
    await writeEvents(trx, [newEvent("content.collector.created", companyId, collectorEventData(collector))]);
    return collector;
  });
}

/** The collectors of a live game of the company, in creation order; "game not found" otherwise. */
export async function listCollectors(db: Db, companyId: string, gameId: string): Promise<Collector[]> {
  await requireLiveGame(db, companyId, gameId);
  return listLiveCollectors(db, companyId, gameId);
}

/** One collector of a live game of the company; another company's or an unknown one is "collector not found". */
export async function getCollector(db: Db, companyId: string, collectorId: string): Promise<Collector> {
  const collector = isUuid(companyId) && isUuid(collectorId) ? await findLiveCollector(db, companyId, collectorId) : undefined;
  if (!collector) throw notFound("collector not found");
  return collector;
}
