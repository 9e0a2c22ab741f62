// What each admin verb does once its arguments are parsed: one use case, one JSON result.
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import { createApiKey, revokeApiKey } from "../api-keys/api-key.service.ts";
import { deleteGame } from "../games/game.service.ts";
import { applyTenant } from "./apply-tenant.ts";
import type { TenantFile } from "./tenant-file.ts";

export type AdminCommand =
  | { verb: "apply"; file: TenantFile }
  | { verb: "api-keys create"; companyId: string; name: string }
  | { verb: "api-keys revoke"; apiKeyId: string }
  | { verb: "games delete"; gameId: string };

export async function runCommand(db: Kysely<ContentDatabase>, command: AdminCommand): Promise<object> {
  switch (command.verb) {
    case "apply":
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
  }
}
