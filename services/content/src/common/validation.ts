// Small input checks shared by the domain rules. They collect issues (JSON pointer + message)
// instead of throwing at the first one, so a caller sees everything wrong at once.
import { validationError, type ValidationIssue } from "@support/errors";

export type { ValidationIssue };
export { isEmail, isUuid } from "@support/errors";

/** Escapes one JSON pointer reference token (RFC 6901). */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A trimmed, nonblank string of at most `max` characters, or an issue. */
export function requiredText(value: unknown, path: string, issues: ValidationIssue[], max = 200): string {
  if (typeof value !== "string" || value.trim() === "") {
    issues.push({ path, message: "must be a nonblank string" });
    return "";
  }
  const text = value.trim();
  if (text.length > max) issues.push({ path, message: `must be at most ${max} characters` });
  return text;
}

/** An optional text: absent, null or blank become null. */
export function optionalText(value: unknown, path: string, issues: ValidationIssue[], max = 2000): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") {
    issues.push({ path, message: "must be a string or null" });
    return null;
  }
  const text = value.trim();
  if (text.length > max) issues.push({ path, message: `must be at most ${max} characters` });
  return text === "" ? null : text;
}

export function optionalBoolean(value: unknown, path: string, issues: ValidationIssue[], fallback = false): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") {
    issues.push({ path, message: "must be a boolean" });
    return fallback;
  }
  return value;
}

export function throwIfInvalid(issues: ValidationIssue[], message?: string): void {
  if (issues.length > 0) throw validationError(issues, message);
}
