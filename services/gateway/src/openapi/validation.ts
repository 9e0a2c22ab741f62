// Request (and, for tests, response) validation compiled from the OpenAPI document, so the
// document is the only place a request shape is written down. Validators are compiled
// once, when this module is loaded, never per request.
import { isEmail, isUuid, validationError } from "@support/errors";
import type { ValidationIssue } from "@support/errors";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Options, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Middleware } from "koa";
import { toIssues } from "./issues.ts";
import { openapiDocument } from "./openapi.ts";
import { escapePointerToken, getOperation, operations, resolvePointer } from "./operations.ts";
import type { Operation } from "./operations.ts";

export type { ValidationIssue } from "@support/errors";

/** The parts of a request that the document describes. */
export interface RequestParts {
  /** Path parameters (from the router). */
  params?: Record<string, unknown>;
  /** Query parameters as parsed from the URL (strings, or arrays of strings when repeated). */
  query?: Record<string, unknown>;
  /** The parsed JSON body; undefined when the request had none. */
  body?: unknown;
}

/** What `validateOperation` leaves in `ctx.state.validated` for the route handler. */
export interface ValidatedRequest {
  /** Path parameters. */
  params: Record<string, unknown>;
  /** Query parameters coerced to their schema types (`limit` is a number) with defaults filled in. */
  query: Record<string, unknown>;
  /** The body with schema defaults filled in (e.g. `platform: "not_specified"`). */
  body: unknown;
}

const DOCUMENT_ID = "openapi.json";

// ajv's discriminator support refuses `mapping` (it finds the branch through each branch's
// `const` of the tag instead). The mapping stays in the served document for renderers and
// client generators; only ajv's private copy loses it.
const ajvDocument = stripDiscriminatorMappings(structuredClone(openapiDocument));

function stripDiscriminatorMappings<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    const discriminator = (value as Record<string, unknown>).discriminator;
    if (discriminator !== null && typeof discriminator === "object") delete (discriminator as Record<string, unknown>).mapping;
    for (const child of Object.values(value)) stripDiscriminatorMappings(child);
  }
  return value;
}

function createAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020({
    // OpenAPI adds keywords (example, discriminator mapping, xml...) that ajv does not know.
    strict: false,
    // Report every problem of a request at once, not only the first one.
    allErrors: true,
    // Validate only the selected action/details branch, so errors name that branch only.
    discriminator: true,
    ...options,
  });
  addFormats.default(ajv);
  // `format: email` and `format: uuid` are the services' own rules (libs/errors), so that a value
  // accepted here is never refused behind the gateway. The email rule is ajv-formats' own; the
  // uuid rule leaves out its `urn:uuid:` prefix, which no service or Postgres column takes.
  ajv.addFormat("email", isEmail);
  ajv.addFormat("uuid", isUuid);
  // The whole document under one id: schemas are compiled in place by JSON pointer, and
  // their `#/components/schemas/...` refs resolve against the document.
  ajv.addSchema(ajvDocument, DOCUMENT_ID);
  return ajv;
}

// Bodies: defaults are filled in so handlers see `attachments: []`, `platform`, ...
const bodyAjv = createAjv({ useDefaults: true });
// Path and query values arrive as strings: coerce them to their schema types. "array" also
// wraps a single value where the schema wants an array (`tags`) and unwraps a one-item array
// (a repeated parameter) where it wants a scalar; two values for a scalar stay an error.
const parameterAjv = createAjv({ useDefaults: true, coerceTypes: "array" });
// Responses are checked as they are: no defaults, no coercion, no mutation.
const responseAjv = createAjv({});

/** A `$ref` to a JSON pointer inside the document (tokens percent-encoded for the URI fragment). */
function documentRef(pointer: string): { $ref: string } {
  return { $ref: `${DOCUMENT_ID}#${pointer.split("/").map(encodeURIComponent).join("/")}` };
}

interface CompiledRequest {
  path: ValidateFunction | undefined;
  query: ValidateFunction | undefined;
  body: ValidateFunction | undefined;
  bodyRequired: boolean;
}

// ajv fills in a default only when it sits in the property's own schema, not behind a
// `$ref`: copy the parameter schema's default next to the ref (`order: asc`, `limit: 100`).
function parameterSchema(pointer: string): Record<string, unknown> {
  const schema = resolvePointer(openapiDocument, pointer) as Record<string, unknown>;
  return "default" in schema ? { ...documentRef(pointer), default: schema.default } : documentRef(pointer);
}

function compileParameters(operation: Operation, location: "path" | "query"): ValidateFunction | undefined {
  const parameters = operation.parameters.filter((parameter) => parameter.in === location);
  if (parameters.length === 0) return undefined;
  // Undeclared query parameters are not refused: GET /support/sessions/redirect takes
  // `fields.<key>` parameters.
  return parameterAjv.compile({
    type: "object",
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameterSchema(parameter.schemaPointer)])),
    required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
  });
}

// The issues of a failed validation; never empty, so a failure can never pass as valid.
function issuesOf(validate: ValidateFunction, prefix: string): ValidationIssue[] {
  const issues = toIssues(validate.errors ?? [], prefix);
  return issues.length > 0 ? issues : [{ path: prefix, message: "is invalid" }];
}

const compiledRequests = new Map<string, CompiledRequest>();
for (const operation of operations.values()) {
  compiledRequests.set(operation.operationId, {
    path: compileParameters(operation, "path"),
    query: compileParameters(operation, "query"),
    body: operation.requestBody === undefined ? undefined : bodyAjv.compile(documentRef(operation.requestBody.schemaPointer)),
    bodyRequired: operation.requestBody?.required === true,
  });
}

function compiledRequest(operationId: string): CompiledRequest {
  const compiled = compiledRequests.get(operationId);
  if (compiled === undefined) throw new Error(`unknown operationId ${operationId}`);
  return compiled;
}

/**
 * Validates a request against its operation in the document. Returns null when valid, else
 * the VALIDATION_ERROR issues (paths: body pointers like `/metadata/player/email`, `/query/limit`,
 * `/path/gameId`).
 *
 * Coerces IN PLACE: `request.query` and `request.params` values become their schema types
 * (`"5"` -> 5) and defaults are filled into `request.query` and `request.body`. Pass copies
 * when the originals must stay untouched (the middleware does).
 */
export function validateRequest(operationId: string, request: RequestParts): ValidationIssue[] | null {
  const compiled = compiledRequest(operationId);
  const issues: ValidationIssue[] = [];
  if (compiled.path !== undefined && !compiled.path(request.params ?? {})) {
    issues.push(...issuesOf(compiled.path, "/path"));
  }
  if (compiled.query !== undefined && !compiled.query(request.query ?? {})) {
    issues.push(...issuesOf(compiled.query, "/query"));
  }
  if (compiled.body !== undefined) {
    if (request.body === undefined) {
      if (compiled.bodyRequired) issues.push({ path: "", message: "a JSON request body is required" });
    } else if (!compiled.body(request.body)) {
      issues.push(...issuesOf(compiled.body, ""));
    }
  }
  // No text column can store U+0000 (Postgres refuses it), so a value carrying one would be
  // an internal error deep in a service: refuse it here, for every operation, by its path.
  if (issues.length === 0) {
    findNul(request.params, "/path", issues);
    findNul(request.query, "/query", issues);
    findNul(request.body, "", issues);
  }
  return issues.length > 0 ? issues : null;
}

const NUL_MESSAGE = "must not contain the NUL character (U+0000)";

// Iterative: parts of a body the schema leaves open (unknown metadata keys) may nest deeply.
function findNul(root: unknown, rootPath: string, issues: ValidationIssue[]): void {
  const stack: [unknown, string][] = [[root, rootPath]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [value, path] = entry;
    if (typeof value === "string") {
      if (value.includes("\u0000")) issues.push({ path, message: NUL_MESSAGE });
    } else if (value !== null && typeof value === "object") {
      const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
      for (const [key, item] of entries.reverse()) {
        // A key holding U+0000 is reported like a value holding it, in document order.
        stack.push([key.includes("\u0000") ? "\u0000" : item, `${path}/${escapePointerToken(key)}`]);
      }
    }
  }
}

/**
 * Koa middleware for one operation: validates `ctx.params`, `ctx.query` and
 * `ctx.request.body` (as set by a body parser). On failure it throws the shared
 * `validationError(issues)` (@support/errors), which the gateway's error middleware turns
 * into 400 `{code: "invalid_argument", message: "Request validation failed", details:
 * {type: "VALIDATION_ERROR", issues}}`, and the handler is not called. On success the
 * coerced values are in `ctx.state.validated` (see ValidatedRequest). An unknown
 * operationId throws at once, when the route is registered, not on the first request.
 */
export function validateOperation(operationId: string): Middleware {
  const compiled = compiledRequest(operationId);
  // No parameter and no body declared (GET /games): a request without a query string has
  // nothing to check or coerce.
  const declaresNothing = compiled.path === undefined && compiled.query === undefined && compiled.body === undefined;
  return (ctx, next) => {
    const bare = declaresNothing && ctx.querystring === "" && ctx.request.body === undefined;
    // Copies: coercion must not leak into Koa's cached `ctx.query` object, whose values
    // are strings by contract.
    const request: ValidatedRequest = {
      params: { ...((ctx as { params?: Record<string, unknown> }).params ?? {}) },
      query: bare ? {} : { ...ctx.query },
      body: ctx.request.body,
    };
    const issues = bare && Object.keys(request.params).length === 0 ? null : validateRequest(operationId, request);
    // Thrown, not answered here: the error middleware is the one place that writes error
    // bodies (and adds what every error response carries).
    if (issues !== null) throw validationError(issues);
    ctx.state.validated = request;
    return next();
  };
}

const compiledResponses = new Map<string, ValidateFunction>();

/**
 * Checks a response against the document (for contract tests): the status must be one the
 * operation declares, the JSON body must match its schema and, when `headers` are given,
 * the headers the document marks required (`x-request-id`, `Location` of a 307,
 * `retry-after` of a 429) must be present. Returns null when it matches, else the issues.
 * A response declared without content (307) has its body ignored. Compiled lazily: only
 * tests use it.
 */
export function validateResponse(
  operationId: string,
  status: number,
  body: unknown,
  headers?: Record<string, unknown> | Headers,
): ValidationIssue[] | null {
  const operation = getOperation(operationId);
  const response = operation.responses.get(String(status));
  if (response === undefined) {
    return [{ path: "", message: `status ${status} is not documented for ${operationId} (documented: ${[...operation.responses.keys()].join(", ")})` }];
  }
  const issues: ValidationIssue[] = [];
  if (headers !== undefined) {
    const has = (name: string) =>
      headers instanceof Headers
        ? headers.has(name)
        : Object.keys(headers).some((key) => key.toLowerCase() === name && headers[key] !== undefined);
    for (const name of response.requiredHeaders) {
      if (!has(name)) issues.push({ path: `/header/${name}`, message: "is required" });
    }
  }
  const contentType = headers === undefined ? undefined : headers instanceof Headers ? headers.get("content-type") : (Object.entries(headers).find(([key]) => key.toLowerCase() === "content-type")?.[1] as string | undefined);
  const mediaType = contentType?.split(";")[0]!.trim().toLowerCase();
  if (mediaType !== undefined && response.otherMediaTypes.includes(mediaType)) {
    // A declared non-JSON answer (a CSV file): a string body, no schema to hold it to.
    if (typeof body !== "string" && body !== undefined) issues.push({ path: "", message: `a ${mediaType} answer must be text` });
  } else if (response.schemaPointer !== undefined) {
    let validate = compiledResponses.get(response.schemaPointer);
    if (validate === undefined) {
      validate = responseAjv.compile(documentRef(response.schemaPointer));
      compiledResponses.set(response.schemaPointer, validate);
    }
    if (!validate(body)) issues.push(...issuesOf(validate, ""));
  }
  return issues.length > 0 ? issues : null;
}
