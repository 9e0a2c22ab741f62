// Queries on users and their game access.
import { sql, type Kysely, type Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { NewUser, User } from "./user.ts";

type Db = Kysely<ContentDatabase>;

export async function insertUser(db: Db, companyId: string, user: NewUser): Promise<User> {
  const row = await db
    .insertInto("users")
    .values({ company_id: companyId, name: user.name, email: user.email, role: user.role, display_name: user.displayName, skills: [...user.skills], ...(user.languages ? { languages: [...user.languages] } : {}), ...(user.capacity !== undefined ? { capacity: user.capacity } : {}) })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (user.gameIds.length > 0) {
    await db
      .insertInto("user_game_access")
      .values(user.gameIds.map((gameId) => ({ company_id: companyId, user_id: row.id, game_id: gameId })))
      .execute();
  }
  return userOf(row, [...user.gameIds]);
}

type UserRow = Selectable<ContentDatabase["users"]>;

function userOf(row: UserRow, gameIds: string[]): User {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    displayName: row.display_name,
    email: row.email,
    role: row.role,
    active: row.active,
    gameIds,
    skills: row.skills,
    available: row.available,
    languages: row.languages,
    capacity: row.capacity,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The games a user has access to: an admin's are every live game of the company. */
async function gameIdsOf(db: Db, row: UserRow): Promise<string[]> {
  if (row.role === "admin") {
    const games = await db.selectFrom("games").select("id").where("company_id", "=", row.company_id).where("deleted_at", "is", null).orderBy("created_at").execute();
    return games.map((game) => game.id);
  }
  const rows = await db
    .selectFrom("user_game_access as a")
    .innerJoin("games as g", "g.id", "a.game_id")
    .select("a.game_id")
    .where("a.user_id", "=", row.id)
    .where("g.deleted_at", "is", null)
    .orderBy("g.created_at")
    .execute();
  return rows.map((r) => r.game_id);
}

export async function findUser(db: Db, userId: string): Promise<User | undefined> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  return row && userOf(row, await gameIdsOf(db, row));
}

/** Users of every company with this email (compared without case). */
export async function findUsersByEmail(db: Db, email: string): Promise<User[]> {
  const rows = await db.selectFrom("users").selectAll().where(sql<string>`lower(email)`, "=", email.toLowerCase()).execute();
  return Promise.all(rows.map(async (row) => userOf(row, await gameIdsOf(db, row))));
}

/**
 * True when the company's user has access to the company's live game: an admin to every one
 * (as their games list says), an agent to those of user_game_access.
 */
export async function hasLiveGameAccess(db: Db, companyId: string, userId: string, gameId: string): Promise<boolean> {
  const row = await db
    .selectFrom("users as u")
    .innerJoin("games as g", (join) => join.on("g.company_id", "=", companyId).on("g.id", "=", gameId).on("g.deleted_at", "is", null))
    .select("u.id")
    .where("u.company_id", "=", companyId)
    .where("u.id", "=", userId)
    .where((eb) =>
      eb.or([
        eb("u.role", "=", "admin"),
        eb.exists(eb.selectFrom("user_game_access as a").select("a.user_id").whereRef("a.user_id", "=", "u.id").where("a.game_id", "=", gameId)),
      ]),
    )
    .executeTakeFirst();
  return row !== undefined;
}

/** The company's active users, by name, with their games. */
export async function listActiveUsers(db: Db, companyId: string): Promise<User[]> {
  const rows = await db.selectFrom("users").selectAll().where("company_id", "=", companyId).where("active", "=", true).orderBy("name").orderBy("id").execute();
  return Promise.all(rows.map(async (row) => userOf(row, await gameIdsOf(db, row))));
}

/** Every user of the company, active and deactivated, by name, with their games. */
export async function listUsers(db: Db, companyId: string): Promise<User[]> {
  const rows = await db.selectFrom("users").selectAll().where("company_id", "=", companyId).orderBy("name").orderBy("id").execute();
  return Promise.all(rows.map(async (row) => userOf(row, await gameIdsOf(db, row))));
}

/** The company's user, locked for update until the transaction ends; undefined for another company's or none. */
export async function findCompanyUserForUpdate(db: Db, companyId: string, userId: string): Promise<User | undefined> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", userId).where("company_id", "=", companyId).forUpdate().executeTakeFirst();
  return row && userOf(row, await gameIdsOf(db, row));
}

/**
 * The ids of the company's active admins, their rows locked until the transaction ends: two
 * admins demoting or deactivating each other at once are decided one after the other.
 */
export async function lockActiveAdmins(db: Db, companyId: string): Promise<string[]> {
  const rows = await db.selectFrom("users").select("id").where("company_id", "=", companyId).where("role", "=", "admin").where("active", "=", true).orderBy("id").forUpdate().execute();
  return rows.map((row) => row.id);
}

/** Sets the role and skills given; replaces the game access when gameIds is given. */
export async function updateUserRow(db: Db, user: Pick<User, "id" | "companyId">, change: Partial<Pick<User, "role" | "gameIds" | "skills" | "languages" | "capacity">>, now: Date): Promise<void> {
  await db
    .updateTable("users")
    .set({ updated_at: now, ...(change.role ? { role: change.role } : {}), ...(change.skills ? { skills: [...change.skills] } : {}), ...(change.languages ? { languages: [...change.languages] } : {}), ...(change.capacity !== undefined ? { capacity: change.capacity } : {}) })
    .where("id", "=", user.id)
    .execute();
  if (change.gameIds === undefined) return;
  await db.deleteFrom("user_game_access").where("user_id", "=", user.id).execute();
  if (change.gameIds.length > 0) {
    await db.insertInto("user_game_access").values(change.gameIds.map((gameId) => ({ company_id: user.companyId, user_id: user.id, game_id: gameId }))).execute();
  }
}
