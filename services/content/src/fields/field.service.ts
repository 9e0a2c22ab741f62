// Field definition use cases: operators define fields; the gateway and tickets service list them.
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
import { fieldEventData, parseNewField, type FieldDefinition, type NewFieldInput } from "./field.ts";
import { insertField, listLiveFields } from "./field.repository.ts";

type Db = Kysely<ContentDatabase>;

export async function createField(db: Db, companyId: string, input: NewFieldInput): Promise<FieldDefinition> {
  const values = parseNewField(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    if (values.gameId !== null) await requireLiveGame(trx, companyId, values.gameId);
    const scope = values.gameId === null ? "company-wide" : "game";
    const field = await uniqueOrConflict(insertField(trx, companyId, values), `a ${scope} field with key ${values.key} already exists`);
    await writeEvents(trx, [newEvent("content.field.created", companyId, fieldEventData(field))]);
    return field;
  });
}

export async function listFields(db: Db, companyId: string): Promise<FieldDefinition[]> {
  return isUuid(companyId) ? listLiveFields(db, companyId) : [];
}
