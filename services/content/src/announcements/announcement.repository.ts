// Queries on announcements.
import { sql, type Kysely, type Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { Announcement, AnnouncementContent, AnnouncementScope } from "./announcement.ts";
import type { AnnouncementTable } from "./announcement.table.ts";

type Db = Kysely<ContentDatabase>;

export interface AnnouncementTarget {
  companyId: string;
  scope: AnnouncementScope;
  gameId: string | null;
  environmentId: string | null;
}

function toAnnouncement(row: Selectable<AnnouncementTable>): Announcement {
  return {
    companyId: row.company_id,
    scope: row.scope,
    gameId: row.game_id,
    environmentId: row.environment_id,
    shortContent: row.short_content,
    longContent: row.long_content,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Creates or fully replaces the announcement of one scope. */
export async function upsertAnnouncement(db: Db, target: AnnouncementTarget, content: AnnouncementContent): Promise<Announcement> {
  const shortContent = JSON.stringify(content.shortContent);
  const longContent = JSON.stringify(content.longContent);
  const row = await db
    .insertInto("announcements")
    .values({
      company_id: target.companyId,
      scope: target.scope,
      game_id: target.gameId,
      environment_id: target.environmentId,
      short_content: shortContent,
      long_content: longContent,
    })
    .onConflict((oc) =>
      oc.columns(["company_id", "game_id", "environment_id"]).doUpdateSet({
        short_content: shortContent,
        long_content: longContent,
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAnnouncement(row);
}

/** Deletes the announcement of one scope; returns whether there was one. */
export async function deleteAnnouncementOf(db: Db, target: AnnouncementTarget): Promise<boolean> {
  let query = db.deleteFrom("announcements").where("company_id", "=", target.companyId).where("scope", "=", target.scope);
  if (target.scope === "game") query = query.where("game_id", "=", target.gameId!);
  if (target.scope === "environment") query = query.where("environment_id", "=", target.environmentId!);
  const result = await query.executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Shared and game announcements of live games: shared first, then by game id. */
export async function listConfiguredAnnouncements(db: Db, companyId: string): Promise<Announcement[]> {
  const rows = await db
    .selectFrom("announcements as a")
    .leftJoin("games as g", "g.id", "a.game_id")
    .selectAll("a")
    .where("a.company_id", "=", companyId)
    .where("a.scope", "in", ["shared", "game"])
    .where((eb) => eb.or([eb("a.game_id", "is", null), eb("g.deleted_at", "is", null)]))
    .orderBy("a.game_id", (ob) => ob.asc().nullsFirst())
    .execute();
  return rows.map(toAnnouncement);
}

/** Every announcement of the company's (shared, of live games, of their environments): the settings' list. */
export async function listAllScopesAnnouncements(db: Db, companyId: string): Promise<Announcement[]> {
  const rows = await db
    .selectFrom("announcements as a")
    .leftJoin("games as g", "g.id", "a.game_id")
    .selectAll("a")
    .where("a.company_id", "=", companyId)
    .where((eb) => eb.or([eb("a.game_id", "is", null), eb("g.deleted_at", "is", null)]))
    .orderBy("a.game_id", (ob) => ob.asc().nullsFirst())
    .orderBy("a.environment_id", (ob) => ob.asc().nullsFirst())
    .execute();
  return rows.map(toAnnouncement);
}

/** The override of the environment, its game's announcement and the shared one, where configured. */
export async function findAnnouncementsFor(db: Db, companyId: string, gameId: string, environmentId: string): Promise<Announcement[]> {
  const rows = await db
    .selectFrom("announcements")
    .selectAll()
    .where("company_id", "=", companyId)
    .where((eb) =>
      eb.or([
        eb("scope", "=", "shared"),
        eb.and([eb("scope", "=", "game"), eb("game_id", "=", gameId)]),
        eb.and([eb("scope", "=", "environment"), eb("environment_id", "=", environmentId)]),
      ]),
    )
    .execute();
  return rows.map(toAnnouncement);
}
