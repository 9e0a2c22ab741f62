// GET /games: the company's live games, served from the per-company cache.
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import { toGameDto } from "../mappings/games.ts";
import type { ApiRoutes } from "./api.ts";
import { sendCached, serialize } from "./respond.ts";

export function registerGameRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const load = async (companyId: string) => {
    const { games } = await deps.content.listGames({ companyId });
    return serialize("listGames", { games: games.map(toGameDto) });
  };
  api.operation("listGames", (ctx) => sendCached(ctx, deps.caches.games, ctx.state.companyId, load));
}
