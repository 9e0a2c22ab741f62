// What a session needs to know of content: the environment behind a public token (its game's
// JWKS, blockUnverifiedPlayers and resources) and the game's field types. Asked on every
// session request, not cached: a key removed from a JWKS must stop verifying at once, and the
// public endpoints are rate limited before they get here.
import type { Client } from "@connectrpc/connect";
import { isAppError, notFound } from "@support/errors";
import type { ContentService } from "@support/proto";
import type { FieldType } from "./session.ts";

export type ContentClient = Client<typeof ContentService>;

export interface SessionGame {
  companyId: string;
  environmentId: string;
  gameId: string;
  blockUnverifiedPlayers: boolean;
  /** The game's JWKS (`{keys: [...]}`), undefined when none is configured. */
  jwks: unknown;
  resourceKeys: string[];
}

export interface GameDirectory {
  /** NOT_FOUND for a token that names no live environment. */
  environmentByToken(token: string): Promise<SessionGame>;
  /** Field types by key for the game: company-wide definitions, overridden by the game's own. */
  fieldTypes(companyId: string, gameId: string): Promise<Map<string, FieldType>>;
  /** The game's name (the mails sent to its players say who they come from). */
  gameName(companyId: string, gameId: string): Promise<string>;
}

export function createGameDirectory(content: ContentClient): GameDirectory {
  return {
    async environmentByToken(token) {
      let response;
      try {
        response = await content.getEnvironmentByToken({ token });
      } catch (error) {
        if (isAppError(error) && error.code === "not_found") throw notFound("No game environment has this token");
        throw error;
      }
      const { environment, game, resources } = response;
      if (!environment || !game) throw new Error("content returned an environment without its game");
      return {
        companyId: response.companyId,
        environmentId: environment.id,
        gameId: game.id,
        blockUnverifiedPlayers: game.blockUnverifiedPlayers,
        jwks: game.metadataJwks,
        resourceKeys: resources.map((resource) => resource.key),
      };
    },

    async gameName(companyId, gameId) {
      const { game } = await content.getGame({ companyId, gameId });
      if (!game) throw notFound("game not found");
      return game.name;
    },

    async fieldTypes(companyId, gameId) {
      const { fields } = await content.listFields({ companyId });
      const types = new Map<string, FieldType>();
      for (const field of fields) if (field.gameId === undefined) types.set(field.key, field.type as FieldType);
      for (const field of fields) if (field.gameId === gameId) types.set(field.key, field.type as FieldType);
      return types;
    },
  };
}
