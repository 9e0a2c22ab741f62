// GET /tags: company-wide and per-game tags, served from the per-company cache.
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import { toTagDto } from "../mappings/tags.ts";
import type { ApiRoutes } from "./api.ts";
import { sendCached, serialize } from "./respond.ts";

export function registerTagRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const load = async (companyId: string) => {
    const { tags } = await deps.content.listTags({ companyId });
    return serialize("listTags", { tags: tags.map(toTagDto) });
  };
  api.operation("listTags", (ctx) => sendCached(ctx, deps.caches.tags, ctx.state.companyId, load));
}
