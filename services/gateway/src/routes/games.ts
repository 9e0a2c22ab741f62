// 4.12 GET /games: the company's live games, served from the per-company cache.
import type { Game } from "@support/proto";
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";
import { isoTimestamp, sendCached } from "./respond.ts";

export function toGameDto(game: Game) {
  return {
    id: game.id,
    name: game.name,
    slug: game.slug,
    languages: game.languages,
    createdAt: isoTimestamp(game.createdAt, "game createdAt"),
    updatedAt: isoTimestamp(game.updatedAt, "game updatedAt"),
  };
}

export function registerGameRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const load = async (companyId: string) => {
    const { games } = await deps.content.listGames({ companyId });
    return JSON.stringify({ games: games.map(toGameDto) });
  };
  api.operation("listGames", (ctx) => sendCached(ctx, deps.caches.games, ctx.state.companyId, load));
}
