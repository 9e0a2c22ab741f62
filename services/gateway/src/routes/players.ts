// POST /player/schedule-deletion and DELETE /player. The body is checked against the
// OpenAPI document before these handlers run; the rules (one schedule per player, the delay,
// the allowImmediateDeletion check, the erasure in every service) live in the players service.
import type { PlayersClient } from "../clients.ts";
import { toPlayerDeletionRequest } from "../mappings/players.ts";
import { respond, type ApiRoutes } from "./api.ts";

/**
 * DELETE /player answers when the player's data is gone from every service: tickets, media
 * (stored objects included) and players, a few calls in sequence. Longer than one plain call.
 */
export const DELETE_PLAYER_TIMEOUT_MS = 30_000;

export function registerPlayerRoutes(api: ApiRoutes, deps: { players: PlayersClient }): void {
  const { players } = deps;

  api.operation("schedulePlayerDeletion", async (ctx) => {
    await players.schedulePlayerDeletion(toPlayerDeletionRequest(ctx.state, ctx.state.validated.body));
    respond(ctx, 200, { success: true });
  });

  api.operation("deletePlayer", async (ctx) => {
    await players.deletePlayer(toPlayerDeletionRequest(ctx.state, ctx.state.validated.body), { timeoutMs: DELETE_PLAYER_TIMEOUT_MS });
    respond(ctx, 200, { success: true });
  });
}
