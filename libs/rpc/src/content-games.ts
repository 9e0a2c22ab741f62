// Whether a game is a live game of a company, asked of content.GetGame: the one answer the
// services that take a game id from a request (media, webhooks) need from content.
import type { Client } from "@connectrpc/connect";
import { notFound } from "@support/errors";
import type { ContentService } from "@support/proto";
import { connectToAppError } from "./errors.ts";

export interface ContentGameDirectory {
  /** Resolves for a live game of the company; throws NOT_FOUND "game not found" otherwise. */
  requireGame(companyId: string, gameId: string): Promise<void>;
}

/** Games through content.GetGame: another company's, a deleted or an unknown game is not found. */
export function createContentGameDirectory(content: Client<typeof ContentService>): ContentGameDirectory {
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
