// 4.15 POST /player/schedule-deletion and 4.16 DELETE /player. The body is checked against the
// OpenAPI document before these handlers run; the rules (one schedule per player, the delay,
// the allowImmediateDeletion check, the erasure in every service) live in the players service.
// The API key of the request is recorded as who asked (the erasure's audit record).
import type { PlayersClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";

/**
 * DELETE /player answers when the player's data is gone from every service: tickets, media
 * (stored objects included) and players, a few calls in sequence. Longer than one plain call.
 */
export const DELETE_PLAYER_TIMEOUT_MS = 30_000;

interface PlayerDeletionBody {
  servicePlayerId: string;
}

export function registerPlayerRoutes(api: ApiRoutes, deps: { players: PlayersClient }): void {
  const { players } = deps;

  api.operation("schedulePlayerDeletion", async (ctx) => {
    const body = ctx.state.validated.body as PlayerDeletionBody;
    await players.schedulePlayerDeletion({ companyId: ctx.state.companyId, playerId: body.servicePlayerId, apiKeyId: ctx.state.apiKeyId || undefined });
    ctx.body = { success: true };
  });

  api.operation("deletePlayer", async (ctx) => {
    const body = ctx.state.validated.body as PlayerDeletionBody;
    await players.deletePlayer(
      { companyId: ctx.state.companyId, playerId: body.servicePlayerId, apiKeyId: ctx.state.apiKeyId || undefined },
      { timeoutMs: DELETE_PLAYER_TIMEOUT_MS },
    );
    ctx.body = { success: true };
  });
}
