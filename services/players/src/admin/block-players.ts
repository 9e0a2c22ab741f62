// The players part of the operators' admin command (D10): block and unblock players, directly
// on the database like the rest of the command, through the players use cases so that every
// change reaches NATS through players.outbox. The command itself lives in the content service
// (services/content/src/admin/cli.ts); it resolves a game's company before calling these.
import { createDb, ensureDatabase, migrateToLatest, type Kysely } from "@support/db";
import { AppError, isAppError } from "@support/errors";
import { PLAYERS_SCHEMA, type PlayersDatabase } from "../database.ts";
import { migrations } from "../migrations/index.ts";
import type { Player } from "../players/player.ts";
import { blockPlayer as blockPlayerUseCase, unblockPlayer as unblockPlayerUseCase } from "../players/player.service.ts";

export interface PlayerTarget {
  gameId: string;
  /** The game's own player id; give exactly one of externalId and email. */
  externalId?: string | undefined;
  email?: string | undefined;
}

export interface AdminPlayerRequest extends PlayerTarget {
  databaseUrl: string;
  companyId: string;
}

/** What the admin command prints for one player. */
export interface AdminPlayerResult {
  playerId: string;
  companyId: string;
  gameId: string;
  externalId: string | null;
  email: string | null;
  name: string | null;
  tier: number | null;
  blocked: boolean;
  /** True when the block created the player (it had not contacted support yet). */
  created: boolean;
}

function result(player: Player, created: boolean): AdminPlayerResult {
  return {
    playerId: player.id,
    companyId: player.companyId,
    gameId: player.gameId,
    externalId: player.externalId,
    email: player.email,
    name: player.name,
    tier: player.tier,
    blocked: player.blocked,
    created,
  };
}

function openPlayersDb(databaseUrl: string, maxConnections: number): Kysely<PlayersDatabase> {
  return createDb<PlayersDatabase>({ url: databaseUrl, schema: PLAYERS_SCHEMA, maxConnections, applicationName: "players-admin" });
}

/**
 * Brings the players schema up to date (a fresh database works). Run it before
 * blockPlayersWithExecutor: migrations cannot run inside the caller's transaction.
 */
export async function migratePlayersSchema(databaseUrl: string): Promise<void> {
  await ensureDatabase(databaseUrl);
  const db = openPlayersDb(databaseUrl, 1);
  try {
    await migrateToLatest(db, PLAYERS_SCHEMA, migrations);
  } finally {
    await db.destroy();
  }
}

// Operators name the game's player id `playerId` (--player-id, the tenant file), as the public
// API does; the service calls it externalId. Errors speak the operators' words.
function operatorTerms(text: string): string {
  return text.replaceAll("externalId", "playerId");
}

async function inOperatorTerms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isAppError(error)) throw error;
    const details = error.details && {
      ...error.details,
      ...(error.details.issues ? { issues: error.details.issues.map((i) => ({ path: operatorTerms(i.path), message: operatorTerms(i.message) })) } : {}),
    };
    throw new AppError(error.code, operatorTerms(error.message), details);
  }
}

async function withPlayersDatabase<T>(databaseUrl: string, work: (db: Kysely<PlayersDatabase>) => Promise<T>): Promise<T> {
  await migratePlayersSchema(databaseUrl);
  const db = openPlayersDb(databaseUrl, 2);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** `pnpm admin players block`: an unknown player is created blocked. */
export async function blockPlayer(request: AdminPlayerRequest): Promise<AdminPlayerResult> {
  const { databaseUrl, ...input } = request;
  return withPlayersDatabase(databaseUrl, async (db) => {
    const { player, created } = await inOperatorTerms(() => blockPlayerUseCase(db, input));
    return result(player, created);
  });
}

/** `pnpm admin players unblock`: an unknown player is a not_found AppError. */
export async function unblockPlayer(request: AdminPlayerRequest): Promise<AdminPlayerResult> {
  const { databaseUrl, ...input } = request;
  return withPlayersDatabase(databaseUrl, async (db) => result(await inOperatorTerms(() => unblockPlayerUseCase(db, input)), false));
}

/**
 * `blockedPlayers` of `pnpm admin apply`: blocks the players inside the caller's transaction
 * (any schema's; content's in practice), so the tenant file is still applied all or nothing.
 * Every query names the players schema. An invalid target throws an invalid_argument AppError
 * whose issue paths are relative to the target (`/playerId`, `/email`, or "" for "give exactly
 * one of playerId and email"): call it per entry inside apply's `at("blockedPlayers/<i>", ...)`
 * to get paths into the file.
 */
export async function blockPlayersWithExecutor(
  trx: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- any service's transaction
  companyId: string,
  targets: readonly PlayerTarget[],
): Promise<AdminPlayerResult[]> {
  if (!trx.isTransaction) throw new Error("blockPlayersWithExecutor needs a transaction");
  const db = trx as Kysely<PlayersDatabase>;
  const results: AdminPlayerResult[] = [];
  for (const target of targets) {
    const { player, created } = await inOperatorTerms(() => blockPlayerUseCase(db, { companyId, ...target }));
    results.push(result(player, created));
  }
  return results;
}
