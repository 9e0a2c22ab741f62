// Player use cases: resolve (find or create) a player for a ticket or session, look it up
// without creating it, read it, change its info, block and unblock it. Each change writes its
// outbox event in the same transaction.
import { writeEvents } from "@support/bus";
import { newEvent, type EventData, type EventType, type NewDomainEvent } from "@support/events";
import type { Kysely } from "@support/db";
import { isUuid, notFound } from "@support/errors";
import type { PlayersDatabase } from "../database.ts";
import {
  parseBlockInput, parsePlayerInfo, parseResolveInput, playerBlockChangeData, playerCreatedData, playerEventTypes,
  playerUpdatedData, type BlockInput, type Player, type PlayerOutcome, type ResolveInput,
} from "./player.ts";
import { auditedPlayer, recordAudit, type AuditOrigin } from "./player.audit.ts";
import {
  findPlayerById, findPlayerByKey, listBlockedPlayers as listBlockedRows, markUnblocked, updatePlayerInfo, upsertBlockedPlayer, upsertResolvedPlayer,
} from "./player.repository.ts";
import { decodeCursor, encodeCursor, pageSize } from "./paging.ts";

type Db = Kysely<PlayersDatabase>;

/** Joins the caller's transaction (the admin service blocking several players at once) or opens one. */
async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute((trx) => work(trx));
}

function event<T extends EventType>(type: T, player: Player, data: EventData<T>): NewDomainEvent<T> {
  return newEvent(type, player.companyId, data);
}

// The players service does not know games: a game id that belongs to another company looks,
// from here, like a player row of that company, and is answered as not found.
const gameNotFound = () => notFound("game not found");

/** Finds the player by (game, external id), else by (game, email); creates it when new. */
export async function resolvePlayer(db: Db, input: ResolveInput): Promise<PlayerOutcome> {
  const values = parseResolveInput(input);
  return inTransaction(db, async (trx) => {
    const written = await upsertResolvedPlayer(trx, values);
    if (written) {
      const { player, created } = written;
      await writeEvents(trx, [
        created ? event(playerEventTypes.created, player, playerCreatedData(player)) : event(playerEventTypes.updated, player, playerUpdatedData(player)),
      ]);
      return written;
    }
    // Nothing changed (or the row is another company's): the row exists and this statement
    // has locked it, so it can be read now.
    const player = await findPlayerByKey(trx, values.companyId, values.gameId, values.key);
    if (!player) throw gameNotFound();
    return { player, created: false };
  });
}

/**
 * ResolvePlayer's read-only half: validates the request as resolvePlayer does and returns the
 * player it names, or nothing when resolvePlayer would create it. Writes nothing.
 */
export async function findPlayer(db: Db, input: ResolveInput): Promise<Player | undefined> {
  const values = parseResolveInput(input);
  return findPlayerByKey(db, values.companyId, values.gameId, values.key);
}

export async function getPlayer(db: Db, companyId: string, playerId: string): Promise<Player> {
  const player = isUuid(companyId) && isUuid(playerId) ? await findPlayerById(db, companyId, playerId) : undefined;
  if (!player) throw notFound("player not found");
  return player;
}

/** Ticket action setPlayerInfo: changes the given name and/or tier. */
export async function setPlayerInfo(db: Db, companyId: string, playerId: string, input: { name?: string | null | undefined; tier?: number | null | undefined }): Promise<Player> {
  const info = parsePlayerInfo(input);
  if (!isUuid(companyId) || !isUuid(playerId)) throw notFound("player not found");
  return inTransaction(db, async (trx) => {
    const updated = await updatePlayerInfo(trx, companyId, playerId, info);
    if (updated) {
      await writeEvents(trx, [event(playerEventTypes.updated, updated, playerUpdatedData(updated))]);
      return updated;
    }
    return getPlayer(trx, companyId, playerId);
  });
}

/**
 * Blocks a player (operators with the admin tool, admins in the settings). An unknown player is
 * created blocked, so the block holds from its first contact on. Blocking a blocked player
 * changes nothing, publishes nothing and records nothing in the audit log.
 */
export async function blockPlayer(db: Db, input: BlockInput, origin?: AuditOrigin): Promise<PlayerOutcome> {
  const values = parseBlockInput(input);
  return inTransaction(db, async (trx) => {
    const written = await upsertBlockedPlayer(trx, values);
    if (written) {
      const { player, created } = written;
      const blocked = event(playerEventTypes.blocked, player, playerBlockChangeData(player));
      await writeEvents(trx, created ? [event(playerEventTypes.created, player, playerCreatedData(player)), blocked] : [blocked]);
      await recordAudit(trx, origin, {
        action: "player.blocked", companyId: player.companyId, playerId: player.id,
        before: created ? null : { blocked: false }, after: { blocked: true }, detail: { ...auditedPlayer(player), newPlayer: created },
      });
      return written;
    }
    const player = await findPlayerByKey(trx, values.companyId, values.gameId, values.key);
    if (!player) throw gameNotFound();
    return { player, created: false };
  });
}

/** Lifts a block; an unknown player is not found. Unblocking an unblocked player changes nothing. */
export async function unblockPlayer(db: Db, input: BlockInput, origin?: AuditOrigin): Promise<Player> {
  const values = parseBlockInput(input);
  return inTransaction(db, async (trx) => {
    const unblocked = await markUnblocked(trx, values.companyId, values.gameId, values.key);
    if (unblocked) {
      await writeEvents(trx, [event(playerEventTypes.unblocked, unblocked, playerBlockChangeData(unblocked))]);
      await recordAudit(trx, origin, {
        action: "player.unblocked", companyId: unblocked.companyId, playerId: unblocked.id, before: { blocked: true }, after: { blocked: false }, detail: auditedPlayer(unblocked),
      });
      return unblocked;
    }
    const player = await findPlayerByKey(trx, values.companyId, values.gameId, values.key);
    if (!player) throw notFound("player not found");
    return player;
  });
}

/** A page of a game's blocked players, the most recently blocked first. */
export async function listBlockedPlayers(
  db: Db,
  input: { companyId: string; gameId: string; pageSize: number; cursor: string },
): Promise<{ players: Player[]; nextCursor: string | undefined }> {
  const limit = pageSize(input.pageSize);
  const after = decodeCursor(input.cursor);
  if (!isUuid(input.companyId) || !isUuid(input.gameId)) return { players: [], nextCursor: undefined };
  const rows = await listBlockedRows(db, { companyId: input.companyId.toLowerCase(), gameId: input.gameId.toLowerCase(), after, limit: limit + 1 });
  const players = rows.slice(0, limit);
  const last = players[players.length - 1];
  return { players, nextCursor: rows.length > limit && last?.blockedAt ? encodeCursor({ at: last.blockedAt, id: last.id }) : undefined };
}
