// GET /fields: company-wide and per-game field definitions, served from the per-company cache.
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import { toFieldDto } from "../mappings/fields.ts";
import type { ApiRoutes } from "./api.ts";
import { sendCached, serialize } from "./respond.ts";

export function registerFieldRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const load = async (companyId: string) => {
    const { fields } = await deps.content.listFields({ companyId });
    return serialize("listFields", { fields: fields.map(toFieldDto) });
  };
  api.operation("listFields", (ctx) => sendCached(ctx, deps.caches.fields, ctx.state.companyId, load));
}
