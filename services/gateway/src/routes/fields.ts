// 4.14 GET /fields: company-wide and per-game field definitions, served from the per-company
// cache. Dropdown options stay internal: 2.9 does not list them.
import type { FieldDefinition } from "@support/proto";
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";
import { sendCached } from "./respond.ts";

export function toFieldDto(field: FieldDefinition) {
  return {
    gameId: field.gameId ?? null,
    name: field.name,
    description: field.description ?? null,
    type: field.type,
    key: field.key,
    isAiField: field.isAiField,
  };
}

export function registerFieldRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const load = async (companyId: string) => {
    const { fields } = await deps.content.listFields({ companyId });
    return JSON.stringify({ fields: fields.map(toFieldDto) });
  };
  api.operation("listFields", (ctx) => sendCached(ctx, deps.caches.fields, ctx.state.companyId, load));
}
