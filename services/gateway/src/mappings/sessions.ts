// Web support sessions from REST to players.v1. The query of GET /support/sessions/redirect is
// first read as the body of POST /support/sessions, so both take the one mapping to
// CreateSupportSession.
import type { CreateSupportSessionRequestSchema } from "@support/proto";
import type { Schemas, Validated } from "../openapi/types.ts";
import type { Init } from "./init.ts";

/**
 * The redirect's query as a session request: `player.*`, `tags` (comma-separated,
 * repeatable) and `fields.<key>` (not declared in the document, so read from the raw query).
 */
export function sessionRequestFromQuery(
  validated: Validated<"redirectToSupportSession">["query"],
  rawQuery: Record<string, string | string[] | undefined>,
): Schemas["CreateSupportSessionRequest"] & { tags: string[] } {
  const player: Schemas["Player"] = {};
  if (validated["player.id"] !== undefined) player.id = validated["player.id"];
  if (validated["player.name"] !== undefined) player.name = validated["player.name"];
  if (validated["player.email"] !== undefined) player.email = validated["player.email"];
  if (validated["player.tier"] !== undefined) player.tier = validated["player.tier"];
  const tags = (validated.tags ?? []).flatMap((value) => value.split(",")).map((tag) => tag.trim()).filter((tag) => tag !== "");
  const fields: Schemas["FieldValues"] = {};
  for (const [name, value] of Object.entries(rawQuery)) {
    if (!name.startsWith("fields.") || name.length === "fields.".length || value === undefined) continue;
    fields[name.slice("fields.".length)] = value;
  }
  return {
    token: validated.token,
    language: validated.language,
    resource: validated.resource,
    signedMetadataToken: validated.signedMetadataToken,
    player: Object.keys(player).length > 0 ? player : undefined,
    tags,
    fields: Object.keys(fields).length > 0 ? fields : undefined,
  };
}

/** `fromQuery`: the request came from the redirect's query (players then reads its field values as query strings). */
export function toCreateSupportSessionRequest(request: Schemas["CreateSupportSessionRequest"], fromQuery: boolean): Init<typeof CreateSupportSessionRequestSchema> {
  const { player } = request;
  return {
    token: request.token,
    language: request.language,
    resource: request.resource,
    signedMetadataToken: request.signedMetadataToken,
    // Only the player keys the document names: a game client may send others.
    metadata: { player: player && { id: player.id, name: player.name, email: player.email, tier: player.tier }, tags: request.tags ?? [], fields: request.fields },
    fieldsFromQuery: fromQuery,
  };
}
