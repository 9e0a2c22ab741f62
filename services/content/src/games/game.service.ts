// Game use cases: operators create games, environments and resources and soft-delete games;
// the gateway and other services read them.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import {
  environmentEventData, gameEventData, parseNewEnvironment, parseNewGame, parseNewResource, resourceEventData,
  type Game, type GameEnvironment, type GameResource, type NewGameInput, type NewResourceInput,
} from "./game.ts";
import {
  findLiveEnvironment, findLiveEnvironmentByToken, findLiveGame, findLiveGameById, insertEnvironment, insertGame, insertResource,
  listEnvironments, listLiveGames, listResources, markGameDeleted,
} from "./game.repository.ts";

type Db = Kysely<ContentDatabase>;

export interface GameDetails {
  game: Game;
  environments: GameEnvironment[];
  resources: GameResource[];
}

/** A live game of the company; another company's, a deleted or an unknown game is "game not found". */
export async function requireLiveGame(db: Db, companyId: string, gameId: string): Promise<Game> {
  const game = isUuid(companyId) && isUuid(gameId) ? await findLiveGame(db, companyId, gameId) : undefined;
  if (!game) throw notFound("game not found");
  return game;
}

export async function requireLiveEnvironment(db: Db, companyId: string, environmentId: string): Promise<GameEnvironment> {
  const environment = isUuid(companyId) && isUuid(environmentId) ? await findLiveEnvironment(db, companyId, environmentId) : undefined;
  if (!environment) throw notFound("environment not found");
  return environment;
}

export async function createGame(db: Db, companyId: string, input: NewGameInput): Promise<Game> {
  const values = parseNewGame(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    const game = await uniqueOrConflict(insertGame(trx, companyId, values), `a game with slug ${values.slug} already exists`);
    await writeEvents(trx, [newEvent("content.game.created", companyId, gameEventData(game))]);
    return game;
  });
}

export async function listGames(db: Db, companyId: string): Promise<Game[]> {
  return isUuid(companyId) ? listLiveGames(db, companyId) : [];
}

export async function getGame(db: Db, companyId: string, gameId: string): Promise<GameDetails> {
  const game = await requireLiveGame(db, companyId, gameId);
  const [environments, resources] = await Promise.all([listEnvironments(db, companyId, gameId), listResources(db, companyId, gameId)]);
  return { game, environments, resources };
}

/** A live game named by its id alone (the admin tool), whatever its company; else "game not found". */
export async function locateGame(db: Db, gameId: string): Promise<Game> {
  const game = isUuid(gameId) ? await findLiveGameById(db, gameId) : undefined;
  if (!game) throw notFound("game not found");
  return game;
}

/** Soft-deletes a live game. Operators name the game only; `companyId` narrows it when known. */
export async function deleteGame(db: Db, gameId: string, companyId?: string): Promise<Game> {
  return inTransaction(db, async (trx) => {
    const game = isUuid(gameId) && (companyId === undefined || isUuid(companyId)) ? await markGameDeleted(trx, gameId, companyId) : undefined;
    if (!game) throw notFound("game not found");
    await writeEvents(trx, [
      newEvent("content.game.deleted", game.companyId, { id: game.id, deletedAt: game.deletedAt!.toISOString() }),
    ]);
    return game;
  });
}

export async function createEnvironment(db: Db, companyId: string, gameId: string, input: { name: string }): Promise<GameEnvironment> {
  const { name } = parseNewEnvironment(input);
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const environment = await uniqueOrConflict(insertEnvironment(trx, companyId, gameId, name), `the game already has an environment named ${name}`);
    await writeEvents(trx, [newEvent("content.environment.created", companyId, environmentEventData(environment))]);
    return environment;
  });
}

/** A resource of a game; a string title or body is the company's primary language's text. */
export async function createResource(db: Db, companyId: string, gameId: string, input: NewResourceInput): Promise<GameResource> {
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const company = await findCompany(trx, companyId);
    if (!company) throw notFound("company not found");
    const values = parseNewResource(input, company.primaryLanguage);
    const resource = await uniqueOrConflict(insertResource(trx, companyId, gameId, values), `the game already has a resource ${values.key}`);
    await writeEvents(trx, [newEvent("content.resource.created", companyId, resourceEventData(resource))]);
    return resource;
  });
}

/** The environment behind a public token, with its live game and the game's resources. */
export async function getEnvironmentByToken(db: Db, token: string): Promise<{ environment: GameEnvironment; game: Game; resources: GameResource[] }> {
  const found = isUuid(token) ? await findLiveEnvironmentByToken(db, token.toLowerCase()) : undefined;
  if (!found) throw notFound("environment not found");
  const resources = await listResources(db, found.game.companyId, found.game.id);
  return { environment: found.environment, game: found.game, resources };
}
