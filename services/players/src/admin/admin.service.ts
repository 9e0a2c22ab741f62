// What the operators' admin tool (tools/admin) does to players, through the players use cases
// so that every change reaches NATS through the outbox: block or unblock several players in one
// transaction (all or none), list and cancel scheduled deletions. Operators name the game's
// player id `playerId` (--player-id, the tenant file), as the public API does; the service
// calls it externalId, so errors are reworded in the operators' terms.
import type { Kysely } from "@support/db";
import { AppError, isAppError } from "@support/errors";
import type { PlayersDatabase } from "../database.ts";
import type { DeletionSchedule } from "../deletion/deletion.ts";
import { cancelDeletion, listSchedules } from "../deletion/deletion.service.ts";
import type { Player } from "../players/player.ts";
import { blockPlayer, unblockPlayer } from "../players/player.service.ts";

type Db = Kysely<PlayersDatabase>;

export interface PlayerTarget {
  gameId: string;
  /** The game's own player id; give exactly one of externalId and email. */
  externalId?: string | undefined;
  email?: string | undefined;
}

function operatorTerms(text: string): string {
  return text.replaceAll("externalId", "playerId");
}

/** Runs the work for `targets/<index>`: its validation issues get that prefix, its messages the operators' words. */
async function forTarget<T>(index: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isAppError(error)) throw error;
    const details = error.details && {
      ...error.details,
      ...(error.details.issues
        ? { issues: error.details.issues.map((i) => ({ path: `/targets/${index}${operatorTerms(i.path)}`, message: operatorTerms(i.message) })) }
        : {}),
    };
    throw new AppError(error.code, operatorTerms(error.message), details);
  }
}

/** Blocks every target (an unknown player is created blocked); blocking again changes nothing. */
export async function blockPlayers(db: Db, companyId: string, targets: readonly PlayerTarget[]): Promise<{ player: Player; created: boolean }[]> {
  return db.transaction().execute(async (trx) => {
    const results: { player: Player; created: boolean }[] = [];
    for (const [index, target] of targets.entries()) results.push(await forTarget(index, () => blockPlayer(trx, { companyId, ...target })));
    return results;
  });
}

/** Lifts every target's block; an unknown player is not_found and nothing changes. */
export async function unblockPlayers(db: Db, companyId: string, targets: readonly PlayerTarget[]): Promise<Player[]> {
  return db.transaction().execute(async (trx) => {
    const results: Player[] = [];
    for (const [index, target] of targets.entries()) results.push(await forTarget(index, () => unblockPlayer(trx, { companyId, ...target })));
    return results;
  });
}

/** The pending scheduled deletions, soonest due first. */
export function listDeletionSchedules(db: Db, companyId: string | undefined): Promise<DeletionSchedule[]> {
  return listSchedules(db, { companyId });
}

/** Cancels the player's scheduled deletion, as an operator. */
export function cancelDeletionAsOperator(db: Db, playerId: string): Promise<DeletionSchedule> {
  return cancelDeletion(db, { playerId, cancelledBy: { type: "operator", id: null } });
}
