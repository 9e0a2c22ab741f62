// How the use cases a tenant file runs report their problems: at the path of the file's entry.
import { isAppError, validationError, type ValidationIssue } from "@support/errors";
import { TenantFileError, type LocalizedText } from "@support/tenant-file";

/** An invalid file: invalid_argument with one issue per bad value, paths into the file ("/games/0/slug"). */
export function invalidFile(error: TenantFileError): Error {
  return validationError(
    error.issues.map((issue) => ({ path: issue.path === "" ? "" : `/${issue.path}`, message: issue.message })),
    error.message,
  );
}

/**
 * Runs one use case for the entry at `path` of the file; a validation error of the use case
 * (paths relative to the entry) becomes a TenantFileError with paths into the file.
 */
export async function at<T>(path: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_argument") {
      const issues: ValidationIssue[] = error.details?.issues ?? [{ path: "", message: error.message }];
      throw new TenantFileError(issues.map((issue) => ({ path: `${path}${issue.path}`, message: issue.message })), error.message);
    }
    throw error;
  }
}

/** A plain string is shorthand for a map with only the primary language. */
export function localized(text: LocalizedText | null | undefined, primaryLanguage: string): Record<string, string | null> | null {
  if (text === null || text === undefined) return null;
  return typeof text === "string" ? { [primaryLanguage]: text } : text;
}
