// Tags from content.v1 to the document's JSON.
import type { Tag } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import { isoTimestamp } from "./timestamps.ts";

export function toTagDto(tag: Tag): Schemas["Tag"] {
  return {
    gameId: tag.gameId ?? null,
    name: tag.name,
    description: tag.description ?? null,
    isAiTag: tag.isAiTag,
    isSkill: tag.isSkill,
    createdAt: isoTimestamp(tag.createdAt, "content", "tag createdAt"),
    updatedAt: isoTimestamp(tag.updatedAt, "content", "tag updatedAt"),
  };
}
