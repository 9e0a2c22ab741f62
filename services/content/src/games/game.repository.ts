// Queries on games, environments and resources. "Live" means not soft-deleted.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { LanguageCode } from "../common/language.ts";
import type { Game, GameEnvironment, GameResource, NewGame, NewResource } from "./game.ts";
import type { GameEnvironmentTable, GameResourceTable, GameTable } from "./game.table.ts";

type Db = Kysely<ContentDatabase>;

// The columns each row is read from. Named rather than `*`: Postgres prepares a statement once per
// connection only when its result cannot change under it (a migration adding a column would).
const GAME_COLUMNS = [
  "id", "company_id", "name", "slug", "languages", "block_unverified_players", "metadata_jwks", "created_at", "updated_at", "deleted_at",
] as const satisfies readonly (keyof GameTable)[];
const ENVIRONMENT_COLUMNS = ["id", "company_id", "game_id", "name", "token", "created_at"] as const satisfies readonly (keyof GameEnvironmentTable)[];
const RESOURCE_COLUMNS = ["id", "game_id", "key", "title", "title_localized", "body"] as const satisfies readonly (keyof GameResourceTable)[];

function toGame(row: Pick<Selectable<GameTable>, (typeof GAME_COLUMNS)[number]>): Game {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    slug: row.slug,
    languages: row.languages as LanguageCode[],
    blockUnverifiedPlayers: row.block_unverified_players,
    metadataJwks: row.metadata_jwks,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

function toEnvironment(row: Pick<Selectable<GameEnvironmentTable>, (typeof ENVIRONMENT_COLUMNS)[number]>): GameEnvironment {
  return { id: row.id, companyId: row.company_id, gameId: row.game_id, name: row.name, token: row.token, createdAt: row.created_at };
}

function toResource(row: Pick<Selectable<GameResourceTable>, (typeof RESOURCE_COLUMNS)[number]>): GameResource {
  return { id: row.id, gameId: row.game_id, key: row.key, title: row.title, titleLocalized: row.title_localized, body: row.body };
}

export async function insertGame(db: Db, companyId: string, game: NewGame): Promise<Game> {
  const row = await db
    .insertInto("games")
    .values({
      company_id: companyId,
      name: game.name,
      slug: game.slug,
      languages: game.languages,
      metadata_jwks: game.metadataJwks === null ? null : JSON.stringify(game.metadataJwks),
      block_unverified_players: game.blockUnverifiedPlayers,
      deleted_at: null,
    })
    .returning(GAME_COLUMNS)
    .executeTakeFirstOrThrow();
  return toGame(row);
}

export async function listLiveGames(db: Db, companyId: string): Promise<Game[]> {
  const rows = await db
    .selectFrom("games")
    .select(GAME_COLUMNS)
    .where("company_id", "=", companyId)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toGame);
}

export async function findLiveGame(db: Db, companyId: string, gameId: string): Promise<Game | undefined> {
  const row = await db
    .selectFrom("games")
    .select(GAME_COLUMNS)
    .where("company_id", "=", companyId)
    .where("id", "=", gameId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return row && toGame(row);
}

/** A live game by its id alone (operators name games by id only). */
export async function findLiveGameById(db: Db, gameId: string): Promise<Game | undefined> {
  const row = await db.selectFrom("games").select(GAME_COLUMNS).where("id", "=", gameId).where("deleted_at", "is", null).executeTakeFirst();
  return row && toGame(row);
}

/** Operators delete by game id alone; `companyId` narrows it when known. */
export async function markGameDeleted(db: Db, gameId: string, companyId?: string): Promise<Game | undefined> {
  let query = db
    .updateTable("games")
    .set({ deleted_at: new Date(), updated_at: new Date() })
    .where("id", "=", gameId)
    .where("deleted_at", "is", null);
  if (companyId !== undefined) query = query.where("company_id", "=", companyId);
  const row = await query.returning(GAME_COLUMNS).executeTakeFirst();
  return row && toGame(row);
}

export async function insertEnvironment(db: Db, companyId: string, gameId: string, name: string): Promise<GameEnvironment> {
  const row = await db
    .insertInto("game_environments")
    .values({ company_id: companyId, game_id: gameId, name })
    .returning(ENVIRONMENT_COLUMNS)
    .executeTakeFirstOrThrow();
  return toEnvironment(row);
}

export async function listEnvironments(db: Db, companyId: string, gameId: string): Promise<GameEnvironment[]> {
  const rows = await db
    .selectFrom("game_environments")
    .select(ENVIRONMENT_COLUMNS)
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toEnvironment);
}

/** An environment of a live game of the company. */
export async function findLiveEnvironment(db: Db, companyId: string, environmentId: string): Promise<GameEnvironment | undefined> {
  const row = await db
    .selectFrom("game_environments as e")
    .innerJoin("games as g", "g.id", "e.game_id")
    .select(ENVIRONMENT_COLUMNS.map((column) => `e.${column}` as const))
    .where("e.company_id", "=", companyId)
    .where("e.id", "=", environmentId)
    .where("g.deleted_at", "is", null)
    .executeTakeFirst();
  return row && toEnvironment(row);
}

/** The environment with this public token and its game, when the game is live. */
export async function findLiveEnvironmentByToken(db: Db, token: string): Promise<{ environment: GameEnvironment; game: Game } | undefined> {
  const environment = await db
    .selectFrom("game_environments")
    .select(ENVIRONMENT_COLUMNS)
    .where("token", "=", token)
    .executeTakeFirst();
  if (!environment) return undefined;
  const game = await findLiveGame(db, environment.company_id, environment.game_id);
  return game && { environment: toEnvironment(environment), game };
}

export async function insertResource(db: Db, companyId: string, gameId: string, resource: NewResource): Promise<GameResource> {
  const row = await db
    .insertInto("game_resources")
    .values({
      company_id: companyId,
      game_id: gameId,
      key: resource.key,
      title: resource.title,
      title_localized: JSON.stringify(resource.titleLocalized),
      body: JSON.stringify(resource.body),
    })
    .returning(RESOURCE_COLUMNS)
    .executeTakeFirstOrThrow();
  return toResource(row);
}

export async function listResources(db: Db, companyId: string, gameId: string): Promise<GameResource[]> {
  const rows = await db
    .selectFrom("game_resources")
    .select(RESOURCE_COLUMNS)
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId)
    .orderBy("key")
    .execute();
  return rows.map(toResource);
}
