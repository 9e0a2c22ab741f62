// Building blocks the event schemas share. Each is a JSON Schema (TypeBox builds it) and the
// TypeScript type of the values it accepts, so a payload is written once for both.
import { Type, type TSchema } from "@sinclair/typebox";

export const Uuid = (description?: string) => Type.String({ format: "uuid", ...(description ? { description } : {}) });
export const DateTime = (description?: string) => Type.String({ format: "date-time", ...(description ? { description } : {}) });
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});
/** One of the given strings (`enum`). */
export const OneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...(description ? { description } : {}) });

/** The player tier of the public API. */
export const Tier = Type.Unsafe<1 | 2 | 3>({ type: "integer", enum: [1, 2, 3] });

/** A custom field's value (`FieldValues` of the public API). */
export const FieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String())]);
export const FieldValues = Type.Record(Type.String(), FieldValue);

/** An attachment named by its public id. */
export const AttachmentRef = Type.Object({ id: Type.String() });

/** The eight field types of a collector (a form). */
export const CollectorFieldType = OneOf(["TEXT", "SELECT_GROUP", "DROPDOWN", "DATE", "EMAIL", "CHECKBOX", "PLATFORM_SELECTOR", "FILE"]);

/** Who asked for a player's deletion: an API key (its id, null when unknown) or an operator. */
export const Requester = Type.Object({
  type: OneOf(["api_key", "operator"]),
  id: Nullable(Type.String(), "The API key's id; null for an operator"),
});
