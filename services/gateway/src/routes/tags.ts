// 4.13 GET /tags: company-wide and per-game tags, served from the per-company cache.
import type { Tag } from "@support/proto";
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";
import { isoTimestamp, sendCached } from "./respond.ts";

export function toTagDto(tag: Tag) {
  return {
    gameId: tag.gameId ?? null,
    name: tag.name,
    description: tag.description ?? null,
    isAiTag: tag.isAiTag,
    isSkill: tag.isSkill,
    createdAt: isoTimestamp(tag.createdAt, "tag createdAt"),
    updatedAt: isoTimestamp(tag.updatedAt, "tag updatedAt"),
  };
}

export function registerTagRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const load = async (companyId: string) => {
    const { tags } = await deps.content.listTags({ companyId });
    return JSON.stringify({ tags: tags.map(toTagDto) });
  };
  api.operation("listTags", (ctx) => sendCached(ctx, deps.caches.tags, ctx.state.companyId, load));
}
