// Collector use cases: operators (a tenant file) and admins (the settings) define a game's
// collectors; admins change their title and fields, retire them and choose the game's contact
// form, each settings change in the audit log and published (content.collector.*) in its
// transaction. The gateway reads them to show the contact form and to check a player's answers.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { randomBytes } from "node:crypto";
import { isUuid } from "../common/validation.ts";
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import { requireLiveGame } from "../games/game.service.ts";
import {
  auditedCollector, collectorEventData, parseCollectorChange, parseNewCollector, refFromTitle, sameDefinition,
  type Collector, type CollectorChangeInput, type NewCollectorInput,
} from "./collector.ts";
import {
  findContactFormForUpdate, findLiveCollector, findLiveCollectorForUpdate, insertCollector, listCompanyLiveCollectors, listLiveCollectors,
  markCollectorRetired, updateCollector,
} from "./collector.repository.ts";

type Db = Kysely<ContentDatabase>;

/**
 * A new collector of a live game; `origin` (an admin in the settings) is recorded in the audit
 * log, a tenant file's are not (the file's entry names them). An admin may leave out the ref: one
 * is made of the title.
 */
export async function createCollector(db: Db, companyId: string, gameId: string, input: NewCollectorInput, origin?: ChangeOrigin): Promise<Collector> {
  const ref = origin && (input.ref === undefined || input.ref === null || input.ref === "") ? refFromTitle(input.title, randomBytes(3).toString("hex")) : input.ref;
  const values = parseNewCollector({ ...input, ref });
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const collector = await uniqueOrConflict(
      insertCollector(trx, companyId, gameId, values),
      values.contactForm ? `the game already has a collector ${values.ref} or a contact form` : `the game already has a collector ${values.ref}`,
    );
    await writeEvents(trx, [newEvent("content.collector.created", companyId, collectorEventData(collector))]);
    if (origin) await writeAudit(trx, { action: "collector.created", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "collector", id: collector.id }, before: null, after: auditedCollector(collector) });
    return collector;
  });
}

async function requireLiveCollectorForUpdate(db: Db, companyId: string, collectorId: string): Promise<Collector> {
  const found = isUuid(companyId) && isUuid(collectorId) ? await findLiveCollectorForUpdate(db, companyId, collectorId) : undefined;
  if (!found) throw notFound("collector not found");
  return found;
}

/**
 * Replaces a live collector's title and fields (added, removed, reordered, changed) with the
 * rules of a new one; its ref and game stay. Results players submitted keep the labels they were
 * given. A change that changes nothing writes nothing.
 */
export async function changeCollector(db: Db, companyId: string, collectorId: string, input: CollectorChangeInput, origin: ChangeOrigin): Promise<Collector> {
  const change = parseCollectorChange(input);
  return inTransaction(db, async (trx) => {
    const found = await requireLiveCollectorForUpdate(trx, companyId, collectorId);
    if (sameDefinition(found, change)) return found;
    const collector = await updateCollector(trx, found.id, change);
    await writeEvents(trx, [newEvent("content.collector.updated", companyId, collectorEventData(collector))]);
    await writeAudit(trx, { action: "collector.updated", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "collector", id: collector.id }, before: auditedCollector(found), after: auditedCollector(collector) });
    return collector;
  });
}

/** Retires a live collector: no longer listed, shown or answered, and no longer the contact form; results on tickets stay. */
export async function retireCollector(db: Db, companyId: string, collectorId: string, origin: ChangeOrigin): Promise<Collector> {
  return inTransaction(db, async (trx) => {
    const found = await requireLiveCollectorForUpdate(trx, companyId, collectorId);
    const collector = await markCollectorRetired(trx, found.id);
    await writeEvents(trx, [
      newEvent("content.collector.retired", companyId, {
        id: collector.id, gameId: collector.gameId, ref: collector.ref, title: collector.title, wasContactForm: found.contactForm, retiredAt: collector.retiredAt!.toISOString(),
      }),
    ]);
    await writeAudit(trx, { action: "collector.retired", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress, target: { type: "collector", id: collector.id }, before: auditedCollector(found), after: auditedCollector(collector) });
    return collector;
  });
}

/**
 * Makes a live collector of the game its contact form (null: the game has none); the previous
 * one stops being it. One audit entry on the game names both; each collector that changed is
 * published as content.collector.updated. Choosing the current one writes nothing.
 */
export async function setContactForm(db: Db, companyId: string, gameId: string, collectorId: string | null, origin: ChangeOrigin): Promise<Collector[]> {
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const chosen = collectorId === null ? undefined : await requireLiveCollectorForUpdate(trx, companyId, collectorId);
    if (chosen && chosen.gameId !== gameId) throw notFound("collector not found");
    const current = await findContactFormForUpdate(trx, companyId, gameId);
    if (current?.id === chosen?.id) return listLiveCollectors(trx, companyId, gameId);
    const changed: Collector[] = [];
    if (current) changed.push(await updateCollector(trx, current.id, { contactForm: false }));
    if (chosen) changed.push(await updateCollector(trx, chosen.id, { contactForm: true }));
    await writeEvents(trx, changed.map((collector) => newEvent("content.collector.updated", companyId, collectorEventData(collector))));
    const named = (collector: Collector | undefined) => (collector ? { collectorId: collector.id, title: collector.title } : { collectorId: null });
    await writeAudit(trx, {
      action: "collector.contact_form_changed", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: { type: "game", id: gameId }, before: named(current), after: named(chosen),
    });
    return listLiveCollectors(trx, companyId, gameId);
  });
}

/** The company's live collectors of its live games (the settings' list). */
export async function listCompanyCollectors(db: Db, companyId: string): Promise<Collector[]> {
  return isUuid(companyId) ? listCompanyLiveCollectors(db, companyId) : [];
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
