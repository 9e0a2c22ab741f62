// Turns ajv's errors into the issues of a VALIDATION_ERROR: one `{path, message}` per
// problem, where `path` is a JSON pointer to the offending value itself. ajv points at the
// parent object for a missing or an extra property and reports every failed branch of an
// anyOf/oneOf; a client wants `/metadata/player/email` and one line per value instead.
import type { ValidationIssue } from "@support/errors";
import type { ErrorObject } from "ajv";
import { escapePointerToken } from "./operations.ts";

// Enumerations longer than this are not spelled out in a message (e.g. the 35 languages).
const MAX_LISTED_VALUES = 13;

/**
 * Converts ajv errors (run with `allErrors`) to issues whose paths are
 * prefixed with `prefix` ("" for the body, "/query", "/path").
 */
export function toIssues(errors: readonly ErrorObject[], prefix = ""): ValidationIssue[] {
  // Each entry keeps ajv's own instancePath so that a later anyOf/oneOf error can find the
  // issues produced by its branches: ajv appends a combinator's branch errors right before
  // the combinator's own error, all at or below the combinator's instancePath.
  const out: Entry[] = [];
  let alternative = false;
  const push = (at: string, path: string, message: string) =>
    out.push({ at, alternative, issue: { path: prefix + path, message } });

  for (const error of errors) {
    const at = error.instancePath;
    const params = error.params as Record<string, unknown>;
    // Errors that only say "the value is not this alternative": a failed `not`, or a
    // discriminator that knows no branch for the tag (see collapseCombinator).
    alternative = error.keyword === "not" || (error.keyword === "discriminator" && params.error === "mapping");
    if (error.propertyName !== undefined) {
      // An error of a `propertyNames` subschema: the name itself is the problem.
      push(at, `${at}/${escapePointerToken(error.propertyName)}`, "is not an allowed property name");
      continue;
    }
    switch (error.keyword) {
      case "propertyNames":
        break; // summary of the errors just handled above
      case "required":
        push(at, `${at}/${escapePointerToken(String(params.missingProperty))}`, "is required");
        break;
      case "additionalProperties":
        push(at, `${at}/${escapePointerToken(String(params.additionalProperty))}`, "is not an allowed property");
        break;
      case "discriminator": {
        const tagPath = `${at}/${escapePointerToken(String(params.tag))}`;
        // A missing tag already has its own "is required" issue.
        if (params.error === "tag" && out.some((entry) => entry.issue.path === prefix + tagPath)) break;
        push(at, tagPath, params.error === "mapping" ? `unknown value ${JSON.stringify(params.tagValue)}` : "must be string");
        break;
      }
      case "anyOf":
      case "oneOf":
        collapseCombinator(out, error, prefix);
        break;
      case "enum": {
        const allowed = params.allowedValues as unknown[];
        push(at, at, allowed.length <= MAX_LISTED_VALUES ? `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}` : "must be one of the allowed values");
        break;
      }
      case "format":
        push(at, at, `must be a valid ${String(params.format)}`);
        break;
      case "false schema":
        push(at, at, "is not allowed");
        break;
      case "const":
        push(at, at, `must be ${JSON.stringify(params.allowedValue)}`);
        break;
      case "type": {
        const types = ([] as unknown[]).concat(params.type);
        push(at, at, `must be ${types.join(" or ")}`);
        break;
      }
      default:
        push(at, at, error.message ?? "is invalid");
    }
  }
  return dedupe(out.map((entry) => entry.issue));
}

// An issue with what collapseCombinator needs: ajv's instancePath, and whether the error
// only rules out an alternative.
interface Entry {
  at: string;
  alternative: boolean;
  issue: ValidationIssue;
}

function collapseCombinator(out: Entry[], error: ErrorObject, prefix: string): void {
  const at = error.instancePath;
  const within = (p: string) => p === at || p.startsWith(`${at}/`);
  let start = out.length;
  while (start > 0 && within(out[start - 1]!.at)) start--;
  let children = out.splice(start);

  if (error.keyword === "oneOf" && children.length === 0) {
    // oneOf failing with no branch errors means more than one branch matched.
    out.push({ at, alternative: false, issue: { path: prefix + at, message: "matches more than one allowed shape" } });
    return;
  }

  // Branches whose errors lie below the value matched its outer shape (an array, an
  // object) and failed inside it: those inner errors are the specific ones, so keep them
  // as they are. `[1]` for "string, number, boolean or array of string" gives `/0 must be string`.
  const root = prefix + at;
  // "Not this alternative" errors of the branches themselves (at the value or its direct
  // property, e.g. the unknown-event branch refusing a known `type`, or the known-event
  // branch refusing an unknown one) are noise next to the errors of the branch that fits.
  const ownLevel = (p: string) => p === at || (p.startsWith(`${at}/`) && !p.slice(at.length + 1).includes("/"));
  const relevant = children.filter((child) => !(child.alternative && ownLevel(child.at)));
  if (relevant.length > 0) children = relevant;
  const deeper = children.filter(({ issue }) => issue.path !== root);
  if (deeper.length > 0) {
    out.push(...deeper);
    return;
  }

  // Otherwise no branch fits the value's type: one issue lists what the branches wanted.
  const parts = [...new Set(children.map(({ issue }) => issue.message))];
  const allTypes = parts.every((part) => part.startsWith("must be "));
  const message =
    parts.length === 0
      ? "does not match any allowed shape"
      : allTypes
        ? `must be ${joinOr(parts.map((part) => part.slice("must be ".length)))}`
        : parts.join(", or ");
  out.push({ at, alternative: false, issue: { path: root, message } });
}

function joinOr(items: string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
