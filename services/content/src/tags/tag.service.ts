// Tag use cases: operators (tenant files) and admins (the settings) define tags, admins change
// and retire them, each settings change in the audit log; the gateway and the tickets service
// list the live ones.
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
import { auditedTag, parseNewTag, parseTagChange, tagEventData, type NewTagInput, type Tag, type TagChangeInput } from "./tag.ts";
import { findLiveTagForUpdate, insertTag, listLiveTags, markTagRetired, updateTag } from "./tag.repository.ts";

type Db = Kysely<ContentDatabase>;

/** A new tag; `origin` (an admin in the settings) is recorded in the audit log, a tenant file's are not (the file's entry names them). */
export async function createTag(db: Db, companyId: string, input: NewTagInput, origin?: ChangeOrigin): Promise<Tag> {
  const values = parseNewTag(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    if (values.gameId !== null) await requireLiveGame(trx, companyId, values.gameId);
    const scope = values.gameId === null ? "company-wide" : "game";
    const tag = await uniqueOrConflict(insertTag(trx, companyId, values), `a ${scope} tag named ${values.name} already exists`);
    await writeEvents(trx, [newEvent("content.tag.created", companyId, tagEventData(tag))]);
    if (origin) await writeAudit(trx, { action: "tag.created", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "tag", id: tag.id }, before: null, after: auditedTag(tag) });
    return tag;
  });
}

/** Changes a live tag's description, isAiTag and isSkill; a change that changes nothing writes nothing. */
export async function changeTag(db: Db, companyId: string, tagId: string, input: TagChangeInput, origin: ChangeOrigin): Promise<Tag> {
  const change = parseTagChange(input);
  return inTransaction(db, async (trx) => {
    const found = isUuid(companyId) && isUuid(tagId) ? await findLiveTagForUpdate(trx, companyId, tagId) : undefined;
    if (!found) throw notFound("tag not found");
    if (found.description === change.description && found.isAiTag === change.isAiTag && found.isSkill === change.isSkill) return found;
    const tag = await updateTag(trx, tagId, change);
    await writeEvents(trx, [newEvent("content.tag.updated", companyId, tagEventData(tag))]);
    await writeAudit(trx, { action: "tag.updated", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "tag", id: tag.id }, before: auditedTag(found), after: auditedTag(tag) });
    return tag;
  });
}

/** Retires a live tag: it is no longer listed or given to tickets, and its name is free again in its scope. */
export async function retireTag(db: Db, companyId: string, tagId: string, origin: ChangeOrigin): Promise<Tag> {
  return inTransaction(db, async (trx) => {
    const found = isUuid(companyId) && isUuid(tagId) ? await findLiveTagForUpdate(trx, companyId, tagId) : undefined;
    if (!found) throw notFound("tag not found");
    const tag = await markTagRetired(trx, tagId);
    await writeEvents(trx, [newEvent("content.tag.retired", companyId, { id: tag.id, gameId: tag.gameId, name: tag.name, retiredAt: tag.retiredAt!.toISOString() })]);
    await writeAudit(trx, { action: "tag.retired", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "tag", id: tag.id }, before: auditedTag(found), after: auditedTag(tag) });
    return tag;
  });
}

export async function listTags(db: Db, companyId: string): Promise<Tag[]> {
  return isUuid(companyId) ? listLiveTags(db, companyId) : [];
}
