// Game use cases: operators create games, environments and resources and soft-delete games;
// a company's admins (in the settings) create games and environments, change a game's name,
// languages, blockUnverifiedPlayers and JWKS, and rotate an environment's public token, each
// change in the audit log with who made it; the gateway and other services read them.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import { writeAudit } from "../audit/audit-log.ts";
import type { ChangeOrigin } from "../audit/audit-log.ts";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import {
  auditedEnvironment, auditedGame, environmentEventData, gameEventData, parseGameUpdate, parseJwksText, parseNewEnvironment, parseNewGame, parseNewResource,
  parseTokenOverlap, resourceEventData, tokenRotatedEventData,
  type Game, type GameEnvironment, type GameResource, type GameUpdateInput, type NewGameInput, type NewResourceInput,
} from "./game.ts";
import {
  findLiveEnvironment, findLiveEnvironmentByToken, findLiveGame, findLiveGameById, findLiveGameForUpdate, insertEnvironment, insertGame, insertResource,
  listCompanyEnvironments, listEnvironments, listLiveGames, listResources, markGameDeleted, rotateEnvironmentTokenRow, updateGameRow,
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

/** Creates a game; with an `origin` (an admin in the settings) the audit log records it. */
export async function createGame(db: Db, companyId: string, input: NewGameInput, origin?: ChangeOrigin): Promise<Game> {
  const values = parseNewGame(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    const game = await uniqueOrConflict(insertGame(trx, companyId, values), `a game with slug ${values.slug} already exists`);
    await writeEvents(trx, [newEvent("content.game.created", companyId, gameEventData(game))]);
    if (origin && origin.audit !== false) {
      await writeAudit(trx, {
        action: "game.created", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
        target: { type: "game", id: game.id }, before: null, after: auditedGame(game),
      });
    }
    return game;
  });
}

/** The game as it is now, its content.game.updated event and its audit entry (when it changed). */
async function recordGameChange(trx: Db, before: Game, after: Game, action: "game.updated" | "game.metadata_keys_changed", origin: ChangeOrigin): Promise<void> {
  await writeEvents(trx, [newEvent("content.game.updated", after.companyId, gameEventData(after))]);
  await writeAudit(trx, {
    action, companyId: after.companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
    target: { type: "game", id: after.id }, before: auditedGame(before), after: auditedGame(after),
  });
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/**
 * Changes a game's name, languages or blockUnverifiedPlayers (absent members stay). A change
 * that changes nothing records nothing. Removing a language deletes no text (see parseGameUpdate).
 */
export async function updateGame(db: Db, companyId: string, gameId: string, input: GameUpdateInput, origin: ChangeOrigin): Promise<Game> {
  const update = parseGameUpdate(input);
  return inTransaction(db, async (trx) => {
    const before = isUuid(companyId) && isUuid(gameId) ? await findLiveGameForUpdate(trx, companyId, gameId) : undefined;
    if (!before) throw notFound("game not found");
    const changed =
      (update.name !== undefined && update.name !== before.name) ||
      (update.languages !== undefined && !sameList(update.languages, before.languages)) ||
      (update.blockUnverifiedPlayers !== undefined && update.blockUnverifiedPlayers !== before.blockUnverifiedPlayers);
    if (!changed) return before;
    const after = await updateGameRow(trx, gameId, update);
    await recordGameChange(trx, before, after, "game.updated", origin);
    return after;
  });
}

/**
 * Replaces a game's public keys verifying signedMetadataToken with the JWKS an admin pasted
 * (JSON text); blank removes them, after which every signed token of the game is refused. The
 * players service reads the keys on every session request, so the change holds at once.
 */
export async function setGameMetadataKeys(db: Db, companyId: string, gameId: string, jwksText: string | undefined, origin: ChangeOrigin): Promise<Game> {
  const metadataJwks = parseJwksText(jwksText);
  return inTransaction(db, async (trx) => {
    const before = isUuid(companyId) && isUuid(gameId) ? await findLiveGameForUpdate(trx, companyId, gameId) : undefined;
    if (!before) throw notFound("game not found");
    if (JSON.stringify(before.metadataJwks) === JSON.stringify(metadataJwks)) return before;
    const after = await updateGameRow(trx, gameId, { metadataJwks });
    await recordGameChange(trx, before, after, "game.metadata_keys_changed", origin);
    return after;
  });
}

/** The company's live games, each with its environments. */
export async function listGamesWithEnvironments(db: Db, companyId: string): Promise<{ game: Game; environments: GameEnvironment[] }[]> {
  if (!isUuid(companyId)) return [];
  const [games, environments] = await Promise.all([listLiveGames(db, companyId), listCompanyEnvironments(db, companyId)]);
  return games.map((game) => ({ game, environments: environments.filter((environment) => environment.gameId === game.id) }));
}

/**
 * Gives an environment a new public token. The new one works at once; the previous one keeps
 * working for `overlapSeconds` (24 hours when not given, 0 stops it at once) and then names
 * nothing. A token replaced by an earlier rotation stops at once, whatever its overlap had left.
 */
export async function rotateEnvironmentToken(
  db: Db, companyId: string, gameId: string, environmentId: string, input: { overlapSeconds?: number | undefined }, origin: ChangeOrigin, now: Date = new Date(),
): Promise<GameEnvironment> {
  const overlapSeconds = parseTokenOverlap(input.overlapSeconds);
  return inTransaction(db, async (trx) => {
    const before = isUuid(companyId) && isUuid(environmentId) ? await findLiveEnvironment(trx, companyId, environmentId, true) : undefined;
    if (!before || before.gameId !== gameId) throw notFound("environment not found");
    const game = await requireLiveGame(trx, companyId, gameId);
    const after = await rotateEnvironmentTokenRow(trx, environmentId, new Date(now.getTime() + overlapSeconds * 1000), now);
    await writeEvents(trx, [newEvent("content.environment.token_rotated", companyId, tokenRotatedEventData(after))]);
    await writeAudit(trx, {
      action: "environment.token_rotated", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: { type: "environment", id: after.id }, before: auditedEnvironment(before, game.name), after: auditedEnvironment(after, game.name), detail: { overlapSeconds },
    });
    return after;
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

/** Creates an environment; with an `origin` (an admin in the settings) the audit log records it. */
export async function createEnvironment(db: Db, companyId: string, gameId: string, input: { name: string }, origin?: ChangeOrigin): Promise<GameEnvironment> {
  const { name } = parseNewEnvironment(input);
  return inTransaction(db, async (trx) => {
    const game = await requireLiveGame(trx, companyId, gameId);
    const environment = await uniqueOrConflict(insertEnvironment(trx, companyId, gameId, name), `the game already has an environment named ${name}`);
    await writeEvents(trx, [newEvent("content.environment.created", companyId, environmentEventData(environment))]);
    if (origin && origin.audit !== false) {
      await writeAudit(trx, {
        action: "environment.created", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
        target: { type: "environment", id: environment.id }, before: null, after: auditedEnvironment(environment, game.name),
      });
    }
    return environment;
  });
}

/**
 * A resource of a game (a tenant file's); a string title or body is the company's primary
 * language's text. It comes after the game's other resources: a file's resources keep the
 * file's order on the page.
 */
export async function createResource(db: Db, companyId: string, gameId: string, input: NewResourceInput): Promise<GameResource> {
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const company = await findCompany(trx, companyId);
    if (!company) throw notFound("company not found");
    const values = parseNewResource(input, company.primaryLanguage);
    const resource = await uniqueOrConflict(insertResource(trx, companyId, gameId, values, true), `the game already has a resource ${values.key}`);
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
