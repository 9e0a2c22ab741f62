// Checks of a collector answer from the player side: the shape of each collector field type
// (TEXT, SELECT_GROUP, DROPDOWN, DATE, EMAIL, CHECKBOX, PLATFORM_SELECTOR, FILE).
import { isUuid, validationError, type ValidationIssue } from "@support/errors";
import type { CollectorField } from "../ticket-events/event.ts";

export const COLLECTOR_FIELD_TYPES = ["TEXT", "SELECT_GROUP", "DROPDOWN", "DATE", "EMAIL", "CHECKBOX", "PLATFORM_SELECTOR", "FILE"] as const;
export const MAX_COLLECTOR_FIELDS = 100;
export const MAX_COLLECTOR_TEXT = 10_000;

export interface CollectorFieldInput {
  key: string | undefined;
  label: string;
  type: string;
  /** The answer as JSON; undefined when absent. */
  value: unknown;
  attachmentIds: string[];
}

export interface CheckedCollectorResult {
  collectorId: string;
  title: string;
  /** Fields without FILE attachments resolved: `attachmentIds` stays for FILE fields. */
  fields: (Omit<CollectorField, "attachments"> & { attachmentIds?: string[] })[];
}

export function checkCollectorResult(input: { collectorId: string; title: string; fields: CollectorFieldInput[] }): CheckedCollectorResult {
  const issues: ValidationIssue[] = [];
  if (!isUuid(input.collectorId)) issues.push({ path: "/collectorId", message: "must be a uuid" });
  if (input.title.trim() === "") issues.push({ path: "/title", message: "must not be blank" });
  if (input.fields.length === 0 || input.fields.length > MAX_COLLECTOR_FIELDS) {
    issues.push({ path: "/fields", message: `must have 1 to ${MAX_COLLECTOR_FIELDS} items` });
  }
  const fields: CheckedCollectorResult["fields"] = [];
  input.fields.forEach((field, index) => {
    const at = `/fields/${index}`;
    if (field.label.trim() === "") issues.push({ path: `${at}/label`, message: "must not be blank" });
    const key = field.key === undefined || field.key === "" ? null : field.key;
    const { type, value } = field;
    switch (type) {
      case "TEXT":
      case "DATE":
      case "EMAIL":
      case "PLATFORM_SELECTOR":
        if (value !== undefined && value !== null && (typeof value !== "string" || value.length > MAX_COLLECTOR_TEXT)) {
          issues.push({ path: `${at}/value`, message: `must be a string of at most ${MAX_COLLECTOR_TEXT} characters or null` });
        }
        fields.push({ key, label: field.label, type, value: (value as string | null | undefined) ?? null });
        break;
      case "SELECT_GROUP":
      case "DROPDOWN":
        if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) issues.push({ path: `${at}/value`, message: "must be an array of strings" });
        fields.push({ key, label: field.label, type, value: value as string[] });
        break;
      case "CHECKBOX":
        if (value !== undefined && value !== null && typeof value !== "boolean") issues.push({ path: `${at}/value`, message: "must be a boolean or null" });
        fields.push({ key, label: field.label, type, value: (value as boolean | null | undefined) ?? null });
        break;
      case "FILE":
        if (value !== undefined && value !== null) issues.push({ path: `${at}/value`, message: "must be absent for a FILE field (use attachments)" });
        fields.push({ key, label: field.label, type, attachmentIds: field.attachmentIds });
        break;
      default:
        issues.push({ path: `${at}/type`, message: `must be one of ${COLLECTOR_FIELD_TYPES.join(", ")}` });
    }
    if (type !== "FILE" && field.attachmentIds.length > 0) issues.push({ path: `${at}/attachments`, message: "only a FILE field has attachments" });
  });
  if (issues.length > 0) throw validationError(issues);
  return { collectorId: input.collectorId.toLowerCase(), title: input.title, fields };
}
