// 4.1-4.4 Announcements: list (cached per company), replace, clear shared, clear per game.
// Writes through this gateway evict the company's cached list before answering
// (read-your-writes); other replicas learn of the change from content's event.
import type { JsonObject } from "@bufbuild/protobuf";
import type { Announcement } from "@support/proto";
import type { ReferenceCaches } from "../cache.ts";
import type { ContentClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";
import { sendCached } from "./respond.ts";

export interface AnnouncementDto {
  shortContent: JsonObject;
  longContent: JsonObject;
  gameId: string | null;
}

interface PutAnnouncementBody {
  shortContent: JsonObject;
  longContent: JsonObject | null;
  gameId: string | null;
}

export function toAnnouncementDto(announcement: Announcement): AnnouncementDto {
  return {
    shortContent: announcement.shortContent ?? {},
    longContent: announcement.longContent ?? {},
    gameId: announcement.gameId ?? null,
  };
}

export function registerAnnouncementRoutes(api: ApiRoutes, deps: { content: ContentClient; caches: ReferenceCaches }): void {
  const { content, caches } = deps;

  const loadList = async (companyId: string) => {
    const { announcements } = await content.listAnnouncements({ companyId });
    return JSON.stringify({ announcements: announcements.map(toAnnouncementDto) });
  };

  api.operation("listAnnouncements", (ctx) => sendCached(ctx, caches.announcements, ctx.state.companyId, loadList));

  api.operation("putAnnouncement", async (ctx) => {
    const { companyId } = ctx.state;
    const body = ctx.state.validated.body as PutAnnouncementBody;
    try {
      const { announcement } = await content.putAnnouncement({
        companyId,
        gameId: body.gameId ?? undefined,
        shortContent: body.shortContent,
        // null and {} both clear the details; content stores {} for either.
        longContent: body.longContent ?? undefined,
      });
      if (announcement === undefined) throw new Error("content returned no announcement");
      ctx.body = { announcement: toAnnouncementDto(announcement) };
    } finally {
      caches.announcements.evict(companyId);
    }
  });

  api.operation("deleteSharedAnnouncement", async (ctx) => {
    const { companyId } = ctx.state;
    try {
      await content.deleteAnnouncement({ companyId });
      ctx.body = { success: true };
    } finally {
      caches.announcements.evict(companyId);
    }
  });

  api.operation("deleteGameAnnouncement", async (ctx) => {
    const { companyId } = ctx.state;
    try {
      await content.deleteAnnouncement({ companyId, gameId: ctx.state.validated.params.gameId as string });
      ctx.body = { success: true };
    } finally {
      caches.announcements.evict(companyId);
    }
  });
}
