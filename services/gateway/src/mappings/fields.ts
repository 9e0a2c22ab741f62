// Field definitions from content.v1 to the document's JSON. GET /fields does not list dropdown
// options; the agent API's GET /agent-api/fields adds them (the console edits with them).
// content.v1 carries the field type as a string; content only stores the document's types, so
// it is narrowed with `as`.
import type { FieldDefinition } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";

export function toFieldDto(field: FieldDefinition): Schemas["FieldDefinition"] {
  return {
    gameId: field.gameId ?? null,
    name: field.name,
    description: field.description ?? null,
    type: field.type as Schemas["FieldDefinition"]["type"],
    key: field.key,
    isAiField: field.isAiField,
  };
}
