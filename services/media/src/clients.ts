// Connect clients of the services the media service depends on: content (games of a company).
import type { Client } from "@connectrpc/connect";
import { ContentService } from "@support/proto";
import type { Registry } from "@support/metrics";
import { balancingOf, connectToAppError, createServiceClient } from "@support/rpc";
import { notFound } from "@support/errors";
import type { GameDirectory } from "./attachments/attachment.service.ts";
import type { MediaConfig } from "./config.ts";

export type ContentClient = Client<typeof ContentService>;

/** `registry`: where the calls' durations are recorded (rpc_client_duration_seconds). */
export function createContentClient(config: Pick<MediaConfig, "CONTENT_URL" | "RPC_TIMEOUT_MS" | "RPC_RESOLVE_INTERVAL_MS" | "RPC_HOSTS_FILE">, registry?: Registry): ContentClient {
  return createServiceClient(ContentService, config.CONTENT_URL, { timeoutMs: config.RPC_TIMEOUT_MS, balancing: balancingOf(config), registry });
}

/** Games through content.GetGame: another company's, a deleted or an unknown game is not found. */
export function createGameDirectory(content: ContentClient): GameDirectory {
  return {
    async requireGame(companyId, gameId) {
      try {
        await content.getGame({ companyId, gameId });
      } catch (error) {
        const appError = connectToAppError(error);
        // Content's own wording may differ ("game not found" is the public one: an unknown, deleted or
        // other company's game is answered alike).
        throw appError.code === "not_found" ? notFound("game not found") : appError;
      }
    },
  };
}
