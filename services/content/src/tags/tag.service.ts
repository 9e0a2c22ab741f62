// Tag use cases: operators define tags; the gateway and the tickets service list them.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { requireLiveGame } from "../games/game.service.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { parseNewTag, tagEventData, type NewTagInput, type Tag } from "./tag.ts";
import { insertTag, listLiveTags } from "./tag.repository.ts";

type Db = Kysely<ContentDatabase>;

export async function createTag(db: Db, companyId: string, input: NewTagInput): Promise<Tag> {
  const values = parseNewTag(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    if (values.gameId !== null) await requireLiveGame(trx, companyId, values.gameId);
    const scope = values.gameId === null ? "company-wide" : "game";
    const tag = await uniqueOrConflict(insertTag(trx, companyId, values), `a ${scope} tag named ${values.name} already exists`);
    await writeEvents(trx, [newEvent("content.tag.created", companyId, tagEventData(tag))]);
    return tag;
  });
}

export async function listTags(db: Db, companyId: string): Promise<Tag[]> {
  return isUuid(companyId) ? listLiveTags(db, companyId) : [];
}
