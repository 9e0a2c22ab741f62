// Announcements: list (cached per company), replace, clear shared, clear per game.
// Writes through this gateway evict the company's cached list before answering
// (read-your-writes); other replicas learn of the change from content's event.
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import { toAnnouncementDto, toPutAnnouncementRequest } from "../mappings/announcements.ts";
import { respond, type ApiRoutes } from "./api.ts";
import { sendCached, serialize } from "./respond.ts";

export function registerAnnouncementRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const { content, caches } = deps;

  const loadList = async (companyId: string) => {
    const { announcements } = await content.listAnnouncements({ companyId });
    return serialize("listAnnouncements", { announcements: announcements.map(toAnnouncementDto) });
  };

  api.operation("listAnnouncements", (ctx) => sendCached(ctx, caches.announcements, ctx.state.companyId, loadList));

  api.operation("putAnnouncement", async (ctx) => {
    const { companyId } = ctx.state;
    try {
      const { announcement } = await content.putAnnouncement(toPutAnnouncementRequest(companyId, ctx.state.validated.body));
      if (announcement === undefined) throw new Error("content returned no announcement");
      respond(ctx, 200, { announcement: toAnnouncementDto(announcement) });
    } finally {
      caches.announcements.evict(companyId);
    }
  });

  api.operation("deleteSharedAnnouncement", async (ctx) => {
    const { companyId } = ctx.state;
    try {
      await content.deleteAnnouncement({ companyId });
      respond(ctx, 200, { success: true });
    } finally {
      caches.announcements.evict(companyId);
    }
  });

  api.operation("deleteGameAnnouncement", async (ctx) => {
    const { companyId } = ctx.state;
    try {
      await content.deleteAnnouncement({ companyId, gameId: ctx.state.validated.params.gameId });
      respond(ctx, 200, { success: true });
    } finally {
      caches.announcements.evict(companyId);
    }
  });
}
