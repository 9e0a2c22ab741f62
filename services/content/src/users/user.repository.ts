// Queries on users and their game access.
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { NewUser, User } from "./user.ts";

type Db = Kysely<ContentDatabase>;

export async function insertUser(db: Db, companyId: string, user: NewUser): Promise<User> {
  const row = await db
    .insertInto("users")
    .values({ company_id: companyId, name: user.name, email: user.email })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (user.gameIds.length > 0) {
    await db
      .insertInto("user_game_access")
      .values(user.gameIds.map((gameId) => ({ company_id: companyId, user_id: row.id, game_id: gameId })))
      .execute();
  }
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    email: row.email,
    gameIds: [...user.gameIds],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** True when the company's user has access to the company's live game. */
export async function hasLiveGameAccess(db: Db, companyId: string, userId: string, gameId: string): Promise<boolean> {
  const row = await db
    .selectFrom("user_game_access as a")
    .innerJoin("games as g", "g.id", "a.game_id")
    .select("a.user_id")
    .where("a.company_id", "=", companyId)
    .where("a.user_id", "=", userId)
    .where("a.game_id", "=", gameId)
    .where("g.company_id", "=", companyId)
    .where("g.deleted_at", "is", null)
    .executeTakeFirst();
  return row !== undefined;
}
