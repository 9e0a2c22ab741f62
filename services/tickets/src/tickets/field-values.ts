// Tags and custom fields against the definitions of content: which ones apply to a
// game, and whether a value has the field's type. SDK metadata is lenient (unknown or wrongly
// typed entries are dropped and reported); agents' actions are strict (each is a 400).
import type { ValidationIssue } from "@support/errors";
import { pointerToken, type FieldValue, type FieldValues } from "./ticket.ts";

export interface TagDefinition {
  /** null: company-wide. */
  gameId: string | null;
  name: string;
  /** isAiTag: the triage sets or suggests it. */
  ai?: boolean;
}

export type FieldType = "text" | "number" | "date" | "boolean" | "dropdown";

export interface FieldDefinition {
  gameId: string | null;
  key: string;
  type: FieldType;
  /** Dropdown options. */
  options: string[];
  /** isAiField: the triage sets or suggests it (dropdown and boolean fields only). */
  ai?: boolean;
}

export interface Definitions {
  tags: TagDefinition[];
  fields: FieldDefinition[];
}

/** The tag names usable on a ticket of `gameId`: company-wide ones and the game's own. */
export function tagsForGame(definitions: Definitions, gameId: string): Set<string> {
  return new Set(definitions.tags.filter((t) => t.gameId === null || t.gameId === gameId).map((t) => t.name));
}

/** The fields usable on a ticket of `gameId` by key; a game's own definition wins over a company-wide one. */
export function fieldsForGame(definitions: Definitions, gameId: string): Map<string, FieldDefinition> {
  const byKey = new Map<string, FieldDefinition>();
  for (const field of definitions.fields) if (field.gameId === null) byKey.set(field.key, field);
  for (const field of definitions.fields) if (field.gameId === gameId) byKey.set(field.key, field);
  return byKey;
}

/** One of the JSON types of a field value (string, number, boolean, array of strings); anything else is a 400 even in metadata. */
export function isFieldValueShape(value: unknown): value is FieldValue {
  if (typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Issues for every value of `fields` that is not a field value type (an object, a nested array, null). */
export function fieldShapeIssues(fields: Record<string, unknown>, path: string): ValidationIssue[] {
  return Object.entries(fields)
    .filter(([, value]) => !isFieldValueShape(value))
    .map(([key]) => ({ path: `${path}/${pointerToken(key)}`, message: "must be a string, a number, a boolean or an array of strings" }));
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A calendar date `YYYY-MM-DD` that exists. */
export function isCalendarDate(value: string): boolean {
  const match = datePattern.exec(value);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** An RFC 3339 date-time whose date and time exist. */
export function isDateTime(value: string): boolean {
  const match = dateTimePattern.exec(value);
  if (!match) return false;
  const [, y, mo, d, h, mi, s] = match;
  return isCalendarDate(`${y}-${mo}-${d}`) && Number(h) < 24 && Number(mi) < 60 && Number(s) < 61 && !Number.isNaN(Date.parse(value));
}

/**
 * The value to store for `field`, or why the value does not fit its type. Dropdown values are
 * one option or an array of distinct options (a multi-select); a date is `YYYY-MM-DD` or an
 * RFC 3339 date-time.
 */
export function checkFieldValue(field: FieldDefinition, value: FieldValue): { ok: true; value: FieldValue } | { ok: false; reason: string } {
  switch (field.type) {
    case "text":
      return typeof value === "string" ? { ok: true, value } : { ok: false, reason: "must be a string (text field)" };
    case "number":
      return typeof value === "number" ? { ok: true, value } : { ok: false, reason: "must be a number (number field)" };
    case "boolean":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, reason: "must be a boolean (boolean field)" };
    case "date":
      return typeof value === "string" && (isCalendarDate(value) || isDateTime(value))
        ? { ok: true, value }
        : { ok: false, reason: "must be a date YYYY-MM-DD or an RFC 3339 date-time (date field)" };
    case "dropdown": {
      const chosen = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
      if (chosen === undefined) return { ok: false, reason: "must be an option or an array of options (dropdown field)" };
      const unknown = chosen.find((option) => !field.options.includes(option));
      if (unknown !== undefined) return { ok: false, reason: `"${unknown}" is not an option of this dropdown (${field.options.join(", ")})` };
      return { ok: true, value: typeof value === "string" ? value : [...new Set(chosen)] };
    }
  }
}

export interface IgnoredEntry {
  path: string;
  reason: string;
}

/**
 * SDK metadata: keeps the tags and field values that are defined for the game and fit
 * their type, and reports what was dropped. Never fails (shape errors are checked before).
 */
export function acceptMetadata(
  definitions: Definitions,
  gameId: string,
  tags: readonly string[],
  fields: FieldValues,
): { tags: string[]; fields: FieldValues; ignored: IgnoredEntry[] } {
  const ignored: IgnoredEntry[] = [];
  const knownTags = tagsForGame(definitions, gameId);
  const acceptedTags: string[] = [];
  tags.forEach((name, index) => {
    if (!knownTags.has(name)) ignored.push({ path: `/metadata/tags/${index}`, reason: `tag "${name}" is not defined for the game` });
    else if (!acceptedTags.includes(name)) acceptedTags.push(name);
  });
  const knownFields = fieldsForGame(definitions, gameId);
  const acceptedFields: FieldValues = {};
  for (const [key, value] of Object.entries(fields)) {
    const path = `/metadata/fields/${pointerToken(key)}`;
    const field = knownFields.get(key);
    if (!field) {
      ignored.push({ path, reason: `field "${key}" is not defined for the game` });
      continue;
    }
    const checked = checkFieldValue(field, value);
    if (checked.ok) acceptedFields[key] = checked.value;
    else ignored.push({ path, reason: checked.reason });
  }
  return { tags: acceptedTags, fields: acceptedFields, ignored };
}
