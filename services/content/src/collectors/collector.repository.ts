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
    fields: row.fields,
    createdAt: row.created_at,
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
    .executeTakeFirst();
  return row ? toCollector(row) : undefined;
}
