// What each admin verb does once its arguments are parsed: one use case, one JSON result.
import type { Kysely } from "kysely";
import { notFound } from "@support/errors";
import { blockPlayer, cancelScheduledDeletion, listScheduledDeletions, migratePlayersSchema, unblockPlayer } from "@support/players";
import type { ContentDatabase } from "../database.ts";
import { createApiKey, revokeApiKey } from "../api-keys/api-key.service.ts";
import { deleteGame } from "../games/game.service.ts";
import { applyTenant } from "./apply-tenant.ts";
import type { TenantFile } from "./tenant-file.ts";

/** The players verbs name the player by exactly one of playerId (the game's own id) and email. */
export type AdminCommand =
  | { verb: "apply"; file: TenantFile }
  | { verb: "api-keys create"; companyId: string; name: string }
  | { verb: "api-keys revoke"; apiKeyId: string }
  | { verb: "games delete"; gameId: string }
  | { verb: "players block" | "players unblock"; gameId: string; playerId?: string; email?: string }
  | { verb: "players schedules"; companyId?: string }
  | { verb: "players cancel-deletion"; servicePlayerId: string };

/** `databaseUrl` is the database of `db`: the players functions open their own connections to it. */
export async function runCommand(db: Kysely<ContentDatabase>, command: AdminCommand, databaseUrl: string): Promise<object> {
  switch (command.verb) {
    case "apply":
      // Migrations cannot run inside apply's transaction: bring the players schema up first.
      if ((command.file.blockedPlayers ?? []).length > 0) await migratePlayersSchema(databaseUrl);
      return applyTenant(db, command.file);
    case "api-keys create": {
      const { apiKey, secret } = await createApiKey(db, command.companyId, { name: command.name });
      return { apiKeyId: apiKey.id, name: apiKey.name, secret };
    }
    case "api-keys revoke": {
      const apiKey = await revokeApiKey(db, command.apiKeyId);
      return { apiKeyId: apiKey.id, revoked: true };
    }
    case "games delete": {
      const game = await deleteGame(db, command.gameId);
      return { gameId: game.id, deleted: true };
    }
    case "players block":
    case "players unblock": {
      // Operators name the game only; the players service needs its company. (No game
      // repository function looks a live game up without its company.)
      const game = await db
        .selectFrom("games")
        .select("company_id")
        .where("id", "=", command.gameId)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      if (!game) throw notFound("game not found");
      const request = { databaseUrl, companyId: game.company_id, gameId: command.gameId, externalId: command.playerId, email: command.email };
      return command.verb === "players block" ? blockPlayer(request) : unblockPlayer(request);
    }
    case "players schedules":
      return listScheduledDeletions({ databaseUrl, companyId: command.companyId });
    case "players cancel-deletion":
      return cancelScheduledDeletion({ databaseUrl, servicePlayerId: command.servicePlayerId });
  }
}
