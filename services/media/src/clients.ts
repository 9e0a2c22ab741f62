// Connect clients of the services the media service depends on: content (games of a company).
import type { Client } from "@connectrpc/connect";
import { notFound } from "@support/errors";
import { ContentService } from "@support/proto";
import type { Registry } from "@support/metrics";
import { balancingOf, connectToAppError, createServiceClient, loadServiceCaller, type ServiceIdentitySettings } from "@support/rpc";
import type { GameDirectory } from "./attachments/attachment.service.ts";
import type { MediaConfig } from "./config.ts";

export type ContentClient = Client<typeof ContentService>;

/** `registry`: where the calls' durations are recorded (rpc_client_duration_seconds). */
export function createContentClient(config: Pick<MediaConfig, "CONTENT_URL" | "RPC_TIMEOUT_MS" | "RPC_RESOLVE_INTERVAL_MS" | "RPC_HOSTS_FILE"> & ServiceIdentitySettings, registry?: Registry): ContentClient {
  return createServiceClient(ContentService, config.CONTENT_URL, {
    timeoutMs: config.RPC_TIMEOUT_MS,
    balancing: balancingOf(config),
    registry,
    identity: loadServiceCaller("media", config),
  });
}

/**
 * Games through content.GetGame: another company's, a deleted or an unknown game is NOT_FOUND
 * "game not found" (the public wording; content's own may differ), any other failure content's.
 */
export function createGameDirectory(content: ContentClient): GameDirectory {
  return {
    async requireGame(companyId, gameId) {
      try {
        await content.getGame({ companyId, gameId });
      } catch (error) {
        const appError = connectToAppError(error);
        throw appError.code === "not_found" ? notFound("game not found") : appError;
      }
    },
  };
}
