// Queries on games, environments and resources. "Live" means not soft-deleted.
import { sql, type Kysely, type Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { LanguageCode } from "../common/language.ts";
import type { Game, GameEnvironment, GameResource, NewGame, NewResource } from "./game.ts";
import type { GameEnvironmentTable, GameResourceTable, GameTable } from "./game.table.ts";

type Db = Kysely<ContentDatabase>;

// The columns each row is read from. Named rather than `*`: Postgres prepares a statement once per
// connection only when its result cannot change under it (a migration adding a column would).
const GAME_COLUMNS = [
  "id", "company_id", "name", "slug", "languages", "block_unverified_players", "routing_enabled", "metadata_jwks", "created_at", "updated_at", "deleted_at",
] as const satisfies readonly (keyof GameTable)[];
const ENVIRONMENT_COLUMNS = [
  "id", "company_id", "game_id", "name", "token", "previous_token", "previous_token_expires_at", "token_rotated_at", "created_at",
] as const satisfies readonly (keyof GameEnvironmentTable)[];
const RESOURCE_COLUMNS = ["id", "game_id", "key", "title", "title_localized", "body", "section", "position", "updated_at"] as const satisfies readonly (keyof GameResourceTable)[];

function toGame(row: Pick<Selectable<GameTable>, (typeof GAME_COLUMNS)[number]>): Game {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    slug: row.slug,
    languages: row.languages as LanguageCode[],
    blockUnverifiedPlayers: row.block_unverified_players,
    routingEnabled: row.routing_enabled,
    metadataJwks: row.metadata_jwks,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

function toEnvironment(row: Pick<Selectable<GameEnvironmentTable>, (typeof ENVIRONMENT_COLUMNS)[number]>): GameEnvironment {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    name: row.name,
    token: row.token,
    previousToken: row.previous_token,
    previousTokenExpiresAt: row.previous_token_expires_at,
    tokenRotatedAt: row.token_rotated_at,
    createdAt: row.created_at,
  };
}

function toResource(row: Pick<Selectable<GameResourceTable>, (typeof RESOURCE_COLUMNS)[number]>): GameResource {
  return {
    id: row.id, gameId: row.game_id, key: row.key, title: row.title, titleLocalized: row.title_localized, body: row.body,
    section: row.section, position: row.position, updatedAt: row.updated_at,
  };
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

/** A live game of the company, locked for a change. */
export async function findLiveGameForUpdate(db: Db, companyId: string, gameId: string): Promise<Game | undefined> {
  const row = await db
    .selectFrom("games")
    .select(GAME_COLUMNS)
    .where("company_id", "=", companyId)
    .where("id", "=", gameId)
    .where("deleted_at", "is", null)
    .forUpdate()
    .executeTakeFirst();
  return row && toGame(row);
}

export async function updateGameRow(db: Db, gameId: string, values: Partial<Pick<Game, "name" | "languages" | "blockUnverifiedPlayers" | "metadataJwks">>): Promise<Game> {
  const row = await db
    .updateTable("games")
    .set({
      ...(values.name !== undefined && { name: values.name }),
      ...(values.languages !== undefined && { languages: values.languages }),
      ...(values.blockUnverifiedPlayers !== undefined && { block_unverified_players: values.blockUnverifiedPlayers }),
      ...(values.metadataJwks !== undefined && { metadata_jwks: values.metadataJwks === null ? null : JSON.stringify(values.metadataJwks) }),
      updated_at: new Date(),
    })
    .where("id", "=", gameId)
    .returning(GAME_COLUMNS)
    .executeTakeFirstOrThrow();
  return toGame(row);
}

/** Every environment of the company's live games, oldest first. */
export async function listCompanyEnvironments(db: Db, companyId: string): Promise<GameEnvironment[]> {
  const rows = await db
    .selectFrom("game_environments as e")
    .innerJoin("games as g", "g.id", "e.game_id")
    .select(ENVIRONMENT_COLUMNS.map((column) => `e.${column}` as const))
    .where("e.company_id", "=", companyId)
    .where("g.deleted_at", "is", null)
    .orderBy("e.created_at")
    .orderBy("e.id")
    .execute();
  return rows.map(toEnvironment);
}

/** Gives the environment a new random token; the current one becomes the previous one until `expiresAt`. */
export async function rotateEnvironmentTokenRow(db: Db, environmentId: string, expiresAt: Date, at: Date): Promise<GameEnvironment> {
  const row = await db
    .updateTable("game_environments")
    .set((eb) => ({
      previous_token: eb.ref("token"),
      previous_token_expires_at: expiresAt,
      token_rotated_at: at,
      token: sql<string>`gen_random_uuid()`,
    }))
    .where("id", "=", environmentId)
    .returning(ENVIRONMENT_COLUMNS)
    .executeTakeFirstOrThrow();
  return toEnvironment(row);
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
export async function findLiveEnvironment(db: Db, companyId: string, environmentId: string, forUpdate = false): Promise<GameEnvironment | undefined> {
  const row = await db
    .selectFrom("game_environments as e")
    .innerJoin("games as g", "g.id", "e.game_id")
    .select(ENVIRONMENT_COLUMNS.map((column) => `e.${column}` as const))
    .where("e.company_id", "=", companyId)
    .where("e.id", "=", environmentId)
    .where("g.deleted_at", "is", null)
    .$if(forUpdate, (query) => query.forUpdate())
    .executeTakeFirst();
  return row && toEnvironment(row);
}

/**
 * The environment with this public token and its game, when the game is live: its current
 * token, or its previous one until that expires (`now`).
 */
export async function findLiveEnvironmentByToken(db: Db, token: string, now: Date = new Date()): Promise<{ environment: GameEnvironment; game: Game } | undefined> {
  const environment = await db
    .selectFrom("game_environments")
    .select(ENVIRONMENT_COLUMNS)
    .where((eb) => eb.or([eb("token", "=", token), eb.and([eb("previous_token", "=", token), eb("previous_token_expires_at", ">", now)])]))
    .executeTakeFirst();
  if (!environment) return undefined;
  const game = await findLiveGame(db, environment.company_id, environment.game_id);
  return game && { environment: toEnvironment(environment), game };
}

/** A new resource: `last` after the game's others (an admin's, a tenant file's); otherwise at position 0 (ties sort by key). */
export async function insertResource(db: Db, companyId: string, gameId: string, resource: NewResource, last = false): Promise<GameResource> {
  const row = await db
    .insertInto("game_resources")
    .values({
      company_id: companyId,
      game_id: gameId,
      key: resource.key,
      title: resource.title,
      title_localized: JSON.stringify(resource.titleLocalized),
      body: JSON.stringify(resource.body),
      section: JSON.stringify(resource.section),
      position: last ? sql<number>`(select coalesce(max(position) + 1, 0) from game_resources where game_id = ${gameId})` : 0,
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
    .orderBy("position")
    .orderBy("key")
    .execute();
  return rows.map(toResource);
}

/** An article of the company, locked for a change. */
export async function findResourceForUpdate(db: Db, companyId: string, resourceId: string): Promise<GameResource | undefined> {
  const row = await db
    .selectFrom("game_resources")
    .select(RESOURCE_COLUMNS)
    .where("company_id", "=", companyId)
    .where("id", "=", resourceId)
    .forUpdate()
    .executeTakeFirst();
  return row && toResource(row);
}

export async function updateResource(db: Db, resourceId: string, change: Partial<Pick<GameResource, "title" | "titleLocalized" | "body" | "section" | "position">>): Promise<GameResource> {
  const row = await db
    .updateTable("game_resources")
    .set({
      ...(change.title === undefined ? {} : { title: change.title }),
      ...(change.titleLocalized === undefined ? {} : { title_localized: JSON.stringify(change.titleLocalized) }),
      ...(change.body === undefined ? {} : { body: JSON.stringify(change.body) }),
      ...(change.section === undefined ? {} : { section: JSON.stringify(change.section) }),
      ...(change.position === undefined ? {} : { position: change.position }),
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where("id", "=", resourceId)
    .returning(RESOURCE_COLUMNS)
    .executeTakeFirstOrThrow();
  return toResource(row);
}

export async function deleteResource(db: Db, resourceId: string): Promise<void> {
  await db.deleteFrom("game_resources").where("id", "=", resourceId).execute();
}
