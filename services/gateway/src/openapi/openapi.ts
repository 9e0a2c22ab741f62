// Loads the gateway's OpenAPI document (openapi.yaml beside this file) once per process.
// Everything that needs the REST contract (validation, docs, contract tests) imports it
// from here, so there is exactly one parsed copy and one serialized copy.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

/** The parts of an OpenAPI 3.1 document this gateway reads; the rest stays `unknown`. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

// Read synchronously at import time: the file is small, start-up is the only moment it is
// read, and a broken document should stop the gateway from starting rather than fail later.
const source = readFileSync(join(import.meta.dirname, "openapi.yaml"), "utf8");

/**
 * The parsed document. Deep-frozen because every consumer shares this one object (ajv,
 * route registration, tests): a consumer that wants to change it must clone it first.
 */
export const openapiDocument: OpenApiDocument = deepFreeze(parse(source) as OpenApiDocument);

/** The document as JSON, serialized once for `GET /openapi.json`. */
export const openapiJson: string = JSON.stringify(openapiDocument);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
