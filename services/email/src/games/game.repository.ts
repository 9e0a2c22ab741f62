// The games projection kept from content's events. Free functions over an executor.
import type { Kysely } from "@support/db";
import type { EmailDatabase } from "../database.ts";

type Db = Kysely<EmailDatabase>;

export interface KnownGame {
  gameId: string;
  companyId: string;
  name: string;
  languages: string[];
  blockUnverifiedPlayers: boolean;
  /** The token of its first environment, for the web support page's link; undefined without one. */
  environmentToken: string | undefined;
}

export async function upsertGame(db: Db, game: Omit<KnownGame, "environmentToken">): Promise<void> {
  await db
    .insertInto("games")
    .values({ game_id: game.gameId, company_id: game.companyId, name: game.name, languages: game.languages, block_unverified_players: game.blockUnverifiedPlayers })
    .onConflict((oc) => oc.column("game_id").doUpdateSet({ name: game.name, languages: game.languages, block_unverified_players: game.blockUnverifiedPlayers }))
    .execute();
}

export async function markGameDeleted(db: Db, gameId: string): Promise<void> {
  await db.updateTable("games").set({ deleted: true }).where("game_id", "=", gameId).execute();
}

export async function insertEnvironment(db: Db, environment: { environmentId: string; gameId: string; token: string; at: Date }): Promise<void> {
  await db
    .insertInto("game_environments")
    .values({ environment_id: environment.environmentId, game_id: environment.gameId, token: environment.token, created_at: environment.at })
    .onConflict((oc) => oc.column("environment_id").doNothing())
    .execute();
}

/** An environment's new token after a rotation (an environment not yet known is added with it). */
export async function replaceEnvironmentToken(db: Db, environment: { environmentId: string; gameId: string; token: string; at: Date }): Promise<void> {
  await db
    .insertInto("game_environments")
    .values({ environment_id: environment.environmentId, game_id: environment.gameId, token: environment.token, created_at: environment.at })
    .onConflict((oc) => oc.column("environment_id").doUpdateSet({ token: environment.token }))
    .execute();
}

/** A live game by id, with its first environment's token. */
export async function findGame(db: Db, gameId: string): Promise<KnownGame | undefined> {
  const row = await db.selectFrom("games").selectAll().where("game_id", "=", gameId).where("deleted", "=", false).executeTakeFirst();
  if (!row) return undefined;
  const environment = await db.selectFrom("game_environments").select("token").where("game_id", "=", gameId).orderBy("created_at").limit(1).executeTakeFirst();
  return {
    gameId: row.game_id,
    companyId: row.company_id,
    name: row.name,
    languages: row.languages,
    blockUnverifiedPlayers: row.block_unverified_players,
    environmentToken: environment?.token,
  };
}
