// Audit entries of changes made by an admin in the support application's settings (the Players
// page) and by a user cancelling a deletion. The audit log is the content service's: this
// service hands each entry over as a players.audit.recorded event, written to its outbox in the
// change's transaction, and content records it once per event id. Changes made by operators'
// tools or with an API key carry no acting user and are not recorded here. An entry names the
// player by ids (the game's player id, never an email address): the log outlives an erasure.
import { writeEvents } from "@support/bus";
import type { Kysely } from "@support/db";
import { newEvent } from "@support/events";
import type { PlayersDatabase } from "../database.ts";
import type { Player } from "./player.ts";

/** The user making a change in the support application, and the address their request came from. */
export interface AuditOrigin {
  actorUserId?: string | undefined;
  clientAddress?: string | undefined;
}

export type PlayerAuditAction = "player.blocked" | "player.unblocked" | "player.deletion_cancelled" | "player.deleted";

export interface PlayerAuditEntry {
  action: PlayerAuditAction;
  companyId: string;
  playerId: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  detail?: Record<string, unknown>;
}

/** What the log says of the player: the game and the game's own player id (null for an email player). */
export function auditedPlayer(player: Pick<Player, "gameId" | "externalId">): Record<string, unknown> {
  return { gameId: player.gameId, playerId: player.externalId };
}

/** Writes the entry's event to the outbox in `trx` when a user acted; nothing otherwise. */
export async function recordAudit(trx: Kysely<PlayersDatabase>, origin: AuditOrigin | undefined, entry: PlayerAuditEntry, at = new Date()): Promise<void> {
  if (!origin?.actorUserId) return;
  await writeEvents(trx, [
    newEvent("players.audit.recorded", entry.companyId, {
      action: entry.action,
      actor: { type: "user", id: origin.actorUserId },
      target: { type: "player", id: entry.playerId },
      before: entry.before ?? null,
      after: entry.after ?? null,
      detail: entry.detail ?? {},
      clientAddress: origin.clientAddress ?? null,
      createdAt: at.toISOString(),
    }),
  ]);
}
