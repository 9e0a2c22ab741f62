// Announcements between REST and content.v1. content.v1 carries the localized contents as
// JSON objects; content only stores maps of language to text (it checks them on the way in),
// so they are narrowed to the document's LocalizationMap with `as`.
import type { Announcement, PutAnnouncementRequestSchema } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import type { Init } from "./init.ts";

export function toAnnouncementDto(announcement: Announcement): Schemas["Announcement"] {
  return {
    shortContent: (announcement.shortContent ?? {}) as Schemas["LocalizationMap"],
    longContent: (announcement.longContent ?? {}) as Schemas["LocalizationMap"],
    gameId: announcement.gameId ?? null,
  };
}

export function toPutAnnouncementRequest(companyId: string, body: Schemas["PutAnnouncementRequest"]): Init<typeof PutAnnouncementRequestSchema> {
  return {
    companyId,
    gameId: body.gameId ?? undefined,
    shortContent: body.shortContent,
    // null and {} both clear the details; content stores {} for either.
    longContent: body.longContent ?? undefined,
  };
}
