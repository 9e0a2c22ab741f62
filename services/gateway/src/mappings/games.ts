// Games from content.v1 to the document's JSON. content.v1 carries language codes as
// strings; content only stores the document's language codes, so they are narrowed with `as`.
import type { Game } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import { isoTimestamp } from "./timestamps.ts";

export function toGameDto(game: Game): Schemas["Game"] {
  return {
    id: game.id,
    name: game.name,
    slug: game.slug,
    languages: game.languages as Schemas["Language"][],
    createdAt: isoTimestamp(game.createdAt, "content", "game createdAt"),
    updatedAt: isoTimestamp(game.updatedAt, "content", "game updatedAt"),
  };
}
