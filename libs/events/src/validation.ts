// Checks data against the schema of its event type and version (Ajv, compiled once per schema).
// Readers check as the schema says, which lets a newer producer add optional properties;
// producers are held to the schema exactly (no property it does not name), so that every
// property in flight is in the contract.
import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { plainSchema, type Json } from "./compatibility.ts";

const ajv = new Ajv({ allErrors: false, strict: true });
addFormats.default(ajv, ["uuid", "date-time"]);

const compiled = { reader: new WeakMap<TSchema, ValidateFunction>(), producer: new WeakMap<TSchema, ValidateFunction>() };

/** The schema with `additionalProperties: false` on every object that names its properties and says nothing of others. */
function closed(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== "object") return schema;
  const copy: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = key === "properties" && value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, closed(property)]))
    : closed(value);
  if (schema.type === "object" && "properties" in schema && !("additionalProperties" in schema)) copy.additionalProperties = false;
  return copy;
}

/**
 * Undefined when `data` matches `schema`; otherwise what is wrong, e.g. "data/status must be
 * equal to one of the allowed values". `as: "producer"` refuses properties the schema does not name.
 */
export function problemWith(schema: TSchema, data: unknown, as: "reader" | "producer" = "reader"): string | undefined {
  let validate = compiled[as].get(schema);
  if (!validate) {
    validate = ajv.compile(as === "producer" ? (closed(plainSchema(schema)) as object) : schema);
    compiled[as].set(schema, validate);
  }
  if (validate(data)) return undefined;
  return ajv.errorsText(validate.errors, { dataVar: "data", separator: "; " });
}
