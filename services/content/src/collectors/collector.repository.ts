// Queries on collector definitions; only those of live games are ever returned.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { Collector, NewCollector } from "./collector.ts";
import type { CollectorTable } from "./collector.table.ts";

type Db = Kysely<ContentDatabase>;

function toCollector(row: Selectable<CollectorTable>): Collector {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    ref: row.ref,
    title: row.title,
    contactForm: row.contact_form,
    // jsonb keeps its own key order: back in the definition's.
    fields: row.fields.map((field) => ({ key: field.key, label: field.label, type: field.type, options: field.options, required: field.required })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    retiredAt: row.retired_at,
  };
}

export async function insertCollector(db: Db, companyId: string, gameId: string, collector: NewCollector): Promise<Collector> {
  const row = await db
    .insertInto("collectors")
    .values({
      company_id: companyId,
      game_id: gameId,
      ref: collector.ref,
      title: collector.title,
      contact_form: collector.contactForm,
      fields: JSON.stringify(collector.fields),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCollector(row);
}

export async function listLiveCollectors(db: Db, companyId: string, gameId: string): Promise<Collector[]> {
  const rows = await db
    .selectFrom("collectors")
    .innerJoin("games", (join) => join.onRef("games.id", "=", "collectors.game_id").onRef("games.company_id", "=", "collectors.company_id"))
    .selectAll("collectors")
    .where("collectors.company_id", "=", companyId)
    .where("collectors.game_id", "=", gameId)
    .where("games.deleted_at", "is", null)
    .where("collectors.retired_at", "is", null)
    .orderBy("collectors.created_at")
    .orderBy("collectors.id")
    .execute();
  return rows.map(toCollector);
}

export async function findLiveCollector(db: Db, companyId: string, collectorId: string): Promise<Collector | undefined> {
  const row = await db
    .selectFrom("collectors")
    .innerJoin("games", (join) => join.onRef("games.id", "=", "collectors.game_id").onRef("games.company_id", "=", "collectors.company_id"))
    .selectAll("collectors")
    .where("collectors.company_id", "=", companyId)
    .where("collectors.id", "=", collectorId)
    .where("games.deleted_at", "is", null)
    .where("collectors.retired_at", "is", null)
    .executeTakeFirst();
  return row ? toCollector(row) : undefined;
}

/** Every live collector of the company's live games, by game then creation. */
export async function listCompanyLiveCollectors(db: Db, companyId: string): Promise<Collector[]> {
  const rows = await db
    .selectFrom("collectors")
    .innerJoin("games", (join) => join.onRef("games.id", "=", "collectors.game_id").onRef("games.company_id", "=", "collectors.company_id"))
    .selectAll("collectors")
    .where("collectors.company_id", "=", companyId)
    .where("games.deleted_at", "is", null)
    .where("collectors.retired_at", "is", null)
    .orderBy("games.created_at")
    .orderBy("collectors.game_id")
    .orderBy("collectors.created_at")
    .orderBy("collectors.id")
    .execute();
  return rows.map(toCollector);
}

/** A live collector of a live game of the company, locked for a change. */
export async function findLiveCollectorForUpdate(db: Db, companyId: string, collectorId: string): Promise<Collector | undefined> {
  const row = await db
    .selectFrom("collectors")
    .innerJoin("games", (join) => join.onRef("games.id", "=", "collectors.game_id").onRef("games.company_id", "=", "collectors.company_id"))
    .selectAll("collectors")
    .where("collectors.company_id", "=", companyId)
    .where("collectors.id", "=", collectorId)
    .where("games.deleted_at", "is", null)
    .where("collectors.retired_at", "is", null)
    .forUpdate("collectors")
    .executeTakeFirst();
  return row ? toCollector(row) : undefined;
}

/** The live contact form of a game, locked. */
export async function findContactFormForUpdate(db: Db, companyId: string, gameId: string): Promise<Collector | undefined> {
  const row = await db
    .selectFrom("collectors")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId)
    .where("contact_form", "=", true)
    .where("retired_at", "is", null)
    .forUpdate()
    .executeTakeFirst();
  return row ? toCollector(row) : undefined;
}

export async function updateCollector(db: Db, collectorId: string, change: { title?: string; fields?: Collector["fields"]; contactForm?: boolean }): Promise<Collector> {
  const row = await db
    .updateTable("collectors")
    .set({
      ...(change.title !== undefined ? { title: change.title } : {}),
      ...(change.fields !== undefined ? { fields: JSON.stringify(change.fields) } : {}),
      ...(change.contactForm !== undefined ? { contact_form: change.contactForm } : {}),
      updated_at: new Date(),
    })
    .where("id", "=", collectorId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCollector(row);
}

/** Retires a collector; it stops being the contact form. */
export async function markCollectorRetired(db: Db, collectorId: string): Promise<Collector> {
  const now = new Date();
  const row = await db
    .updateTable("collectors")
    .set({ retired_at: now, updated_at: now, contact_form: false })
    .where("id", "=", collectorId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCollector(row);
}
