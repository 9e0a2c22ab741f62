// Queries on tag definitions.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { NewTag, Tag, TagChange } from "./tag.ts";
import type { TagTable } from "./tag.table.ts";

type Db = Kysely<ContentDatabase>;

function toTag(row: Selectable<TagTable>): Tag {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    name: row.name,
    description: row.description,
    isAiTag: row.is_ai_tag,
    isSkill: row.is_skill,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    retiredAt: row.retired_at,
  };
}

export async function insertTag(db: Db, companyId: string, tag: NewTag): Promise<Tag> {
  const row = await db
    .insertInto("tags")
    .values({
      company_id: companyId,
      game_id: tag.gameId,
      name: tag.name,
      description: tag.description,
      is_ai_tag: tag.isAiTag,
      is_skill: tag.isSkill,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTag(row);
}

/** Company-wide tags first, then per-game tags of live games, by game id and name. */
export async function listLiveTags(db: Db, companyId: string): Promise<Tag[]> {
  const rows = await db
    .selectFrom("tags as t")
    .leftJoin("games as g", "g.id", "t.game_id")
    .selectAll("t")
    .where("t.company_id", "=", companyId)
    .where("t.retired_at", "is", null)
    .where((eb) => eb.or([eb("t.game_id", "is", null), eb("g.deleted_at", "is", null)]))
    .orderBy("t.game_id", (ob) => ob.asc().nullsFirst())
    .orderBy("t.name")
    .execute();
  return rows.map(toTag);
}

/** A live tag of the company, its row locked for a change. */
export async function findLiveTagForUpdate(db: Db, companyId: string, tagId: string): Promise<Tag | undefined> {
  const row = await db.selectFrom("tags").selectAll().where("company_id", "=", companyId).where("id", "=", tagId).where("retired_at", "is", null).forUpdate().executeTakeFirst();
  return row && toTag(row);
}

export async function updateTag(db: Db, tagId: string, change: TagChange): Promise<Tag> {
  const row = await db
    .updateTable("tags")
    .set({ description: change.description, is_ai_tag: change.isAiTag, is_skill: change.isSkill, updated_at: new Date() })
    .where("id", "=", tagId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTag(row);
}

export async function markTagRetired(db: Db, tagId: string): Promise<Tag> {
  const now = new Date();
  const row = await db.updateTable("tags").set({ retired_at: now, updated_at: now }).where("id", "=", tagId).returningAll().executeTakeFirstOrThrow();
  return toTag(row);
}
