// Custom field definitions: company-wide or per game; keys unique within that scope;
// dropdown fields carry their options.
import {
  optionalBoolean, optionalText, requiredText, throwIfInvalid, type ValidationIssue,
} from "../common/validation.ts";

export const FIELD_TYPES = ["text", "number", "date", "boolean", "dropdown"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldDefinition {
  id: string;
  companyId: string;
  gameId: string | null;
  key: string;
  name: string;
  type: FieldType;
  description: string | null;
  isAiField: boolean;
  options: string[];
  createdAt: Date;
  updatedAt: Date;
  /** Null: live. A retired field is neither listed nor set on tickets; values tickets have stay. */
  retiredAt: Date | null;
}

export interface NewFieldInput {
  gameId: string | null;
  key: string;
  name: string;
  type: string;
  description?: string | null | undefined;
  isAiField?: boolean | undefined;
  options?: readonly string[] | undefined;
}

export type NewField = Pick<FieldDefinition, "gameId" | "key" | "name" | "type" | "description" | "isAiField" | "options">;

export function isFieldType(value: unknown): value is FieldType {
  return typeof value === "string" && (FIELD_TYPES as readonly string[]).includes(value);
}

// Keys name fields in JSON objects and in `fields.<key>` query parameters.
const fieldKeyPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function isFieldKey(value: unknown): value is string {
  return typeof value === "string" && fieldKeyPattern.test(value);
}

/** Options exist only for dropdown fields, and a dropdown needs at least one; no blanks or repeats. */
export function checkFieldOptions(type: FieldType, options: unknown, path: string, issues: ValidationIssue[]): string[] {
  if (type !== "dropdown") {
    if (options !== undefined && options !== null && !(Array.isArray(options) && options.length === 0)) {
      issues.push({ path, message: "only dropdown fields have options" });
    }
    return [];
  }
  if (!Array.isArray(options) || options.length === 0) {
    issues.push({ path, message: "a dropdown field needs at least one option" });
    return [];
  }
  const seen = new Set<string>();
  const result: string[] = [];
  options.forEach((option, index) => {
    if (typeof option !== "string" || option.trim() === "") {
      issues.push({ path: `${path}/${index}`, message: "must be a nonblank string" });
    } else if (seen.has(option.trim())) {
      issues.push({ path: `${path}/${index}`, message: "is listed twice" });
    } else if (option.trim().length > 200) {
      issues.push({ path: `${path}/${index}`, message: "must be at most 200 characters" });
    } else {
      seen.add(option.trim());
      result.push(option.trim());
    }
  });
  return result;
}

export function parseNewField(input: NewFieldInput): NewField {
  const issues: ValidationIssue[] = [];
  if (!isFieldKey(input.key)) issues.push({ path: "/key", message: "must be 1-64 letters, digits, '_' or '-'" });
  const name = requiredText(input.name, "/name", issues);
  let type: FieldType = "text";
  if (isFieldType(input.type)) type = input.type;
  else issues.push({ path: "/type", message: `must be one of ${FIELD_TYPES.join(", ")}` });
  const options = isFieldType(input.type) ? checkFieldOptions(type, input.options, "/options", issues) : [];
  const description = optionalText(input.description, "/description", issues);
  const isAiField = optionalBoolean(input.isAiField, "/isAiField", issues);
  throwIfInvalid(issues);
  return { gameId: input.gameId, key: input.key, name, type, description, isAiField, options };
}

/** What an admin may change of a field: its key, type and game name the values tickets hold, so they stay. */
export interface FieldChangeInput {
  name: string;
  description?: string | null | undefined;
  isAiField?: boolean | undefined;
  /** A dropdown's options (at least one); other types have none. Removing one leaves the values tickets hold. */
  options?: readonly string[] | undefined;
}

export type FieldChange = Pick<FieldDefinition, "name" | "description" | "isAiField" | "options">;

export function parseFieldChange(type: FieldType, input: FieldChangeInput): FieldChange {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues);
  const options = checkFieldOptions(type, input.options, "/options", issues);
  const description = optionalText(input.description, "/description", issues);
  const isAiField = optionalBoolean(input.isAiField, "/isAiField", issues);
  throwIfInvalid(issues);
  return { name, description, isAiField, options };
}

/** The field's settings as the audit log keeps them before and after a change. */
export function auditedField(field: FieldDefinition): Record<string, unknown> {
  return {
    key: field.key, name: field.name, type: field.type, gameId: field.gameId, description: field.description, isAiField: field.isAiField, options: field.options,
    retiredAt: field.retiredAt?.toISOString() ?? null,
  };
}

export function fieldEventData(field: FieldDefinition) {
  return {
    id: field.id,
    gameId: field.gameId,
    key: field.key,
    name: field.name,
    type: field.type,
    description: field.description,
    isAiField: field.isAiField,
    options: field.options,
    createdAt: field.createdAt.toISOString(),
    updatedAt: field.updatedAt.toISOString(),
  };
}
