// Field definition use cases: operators (tenant files) and admins (the settings) define fields,
// admins change and retire them, each settings change in the audit log; the gateway and the
// tickets service list the live ones.
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
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import { auditedField, fieldEventData, parseFieldChange, parseNewField, type FieldChangeInput, type FieldDefinition, type NewFieldInput } from "./field.ts";
import { findLiveFieldForUpdate, insertField, listLiveFields, markFieldRetired, updateField } from "./field.repository.ts";

type Db = Kysely<ContentDatabase>;

/** A new field; `origin` (an admin in the settings) is recorded in the audit log, a tenant file's are not (the file's entry names them). */
export async function createField(db: Db, companyId: string, input: NewFieldInput, origin?: ChangeOrigin): Promise<FieldDefinition> {
  const values = parseNewField(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    if (values.gameId !== null) await requireLiveGame(trx, companyId, values.gameId);
    const scope = values.gameId === null ? "company-wide" : "game";
    const field = await uniqueOrConflict(insertField(trx, companyId, values), `a ${scope} field with key ${values.key} already exists`);
    await writeEvents(trx, [newEvent("content.field.created", companyId, fieldEventData(field))]);
    if (origin) await writeAudit(trx, { action: "field.created", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "field", id: field.id }, before: null, after: auditedField(field) });
    return field;
  });
}

/** Changes a live field's name, description, isAiField and (a dropdown's) options; a change that changes nothing writes nothing. */
export async function changeField(db: Db, companyId: string, fieldId: string, input: FieldChangeInput, origin: ChangeOrigin): Promise<FieldDefinition> {
  return inTransaction(db, async (trx) => {
    const found = isUuid(companyId) && isUuid(fieldId) ? await findLiveFieldForUpdate(trx, companyId, fieldId) : undefined;
    if (!found) throw notFound("field not found");
    const change = parseFieldChange(found.type, input);
    if (JSON.stringify([found.name, found.description, found.isAiField, found.options]) === JSON.stringify([change.name, change.description, change.isAiField, change.options])) return found;
    const field = await updateField(trx, fieldId, change);
    await writeEvents(trx, [newEvent("content.field.updated", companyId, fieldEventData(field))]);
    await writeAudit(trx, { action: "field.updated", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "field", id: field.id }, before: auditedField(found), after: auditedField(field) });
    return field;
  });
}

/** Retires a live field: it is no longer listed or set on tickets, and its key is free again in its scope. */
export async function retireField(db: Db, companyId: string, fieldId: string, origin: ChangeOrigin): Promise<FieldDefinition> {
  return inTransaction(db, async (trx) => {
    const found = isUuid(companyId) && isUuid(fieldId) ? await findLiveFieldForUpdate(trx, companyId, fieldId) : undefined;
    if (!found) throw notFound("field not found");
    const field = await markFieldRetired(trx, fieldId);
    await writeEvents(trx, [newEvent("content.field.retired", companyId, { id: field.id, gameId: field.gameId, key: field.key, retiredAt: field.retiredAt!.toISOString() })]);
    await writeAudit(trx, { action: "field.retired", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "field", id: field.id }, before: auditedField(found), after: auditedField(field) });
    return field;
  });
}

export async function listFields(db: Db, companyId: string): Promise<FieldDefinition[]> {
  return isUuid(companyId) ? listLiveFields(db, companyId) : [];
}
