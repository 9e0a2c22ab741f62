// An index of the document's operations (method, path, operationId, parameters, body,
// responses), with OpenAPI-level `$ref`s resolved and each schema named by its JSON
// pointer into the document, so ajv can compile it in place instead of from a copy.
import { openapiDocument } from "./openapi.ts";
import type { OpenApiDocument } from "./openapi.ts";

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  /** JSON pointer (within the document) of the parameter's schema. */
  schemaPointer: string;
}

export interface OperationResponse {
  /** JSON pointer of the `application/json` body schema; undefined when there is no body (307). */
  schemaPointer: string | undefined;
  /** Names (lower case) of the headers the response must carry. */
  requiredHeaders: string[];
  /** The media types other than JSON it may also be answered in (`text/csv`); their bodies have no JSON schema. */
  otherMediaTypes: string[];
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** The OpenAPI path template, e.g. `/announcements/{gameId}`. */
  path: string;
  /** The same path in @koa/router syntax, e.g. `/announcements/:gameId`. */
  routerPath: string;
  /** Whether the API key (bearerAuth) is required: false for the public and the player-side routes. */
  authenticated: boolean;
  /** Whether a web support session code (sessionCode, the player side) is required instead. */
  sessionAuthenticated: boolean;
  /** Whether the support application's session cookie (agentSession, `/agent-api`) is required instead. */
  agentSessionAuthenticated: boolean;
  parameters: OperationParameter[];
  requestBody: { required: boolean; schemaPointer: string } | undefined;
  responses: Map<string, OperationResponse>;
}

type Json = Record<string, unknown>;

/** Escapes one JSON pointer token (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** `/tickets/{ticketId}/events` -> `/tickets/:ticketId/events`. */
export function toRouterPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ":$1");
}

/** Builds the operation index of a document (exported for tests; use `operations`). */
export function indexOperations(doc: OpenApiDocument): Map<string, Operation> {
  // Follows a local `$ref` (parameters, responses, request bodies, headers) and returns the
  // target with its pointer; a chain of refs is followed to its end.
  const deref = (value: Json, pointer: string): { value: Json; pointer: string } => {
    let current = value;
    let at = pointer;
    for (let hops = 0; typeof current.$ref === "string"; hops++) {
      const ref = current.$ref;
      if (!ref.startsWith("#/") || hops > 10) throw new Error(`unsupported $ref ${ref} at ${at}`);
      at = ref.slice(1);
      current = resolvePointer(doc, at) as Json;
    }
    return { value: current, pointer: at };
  };

  const jsonSchemaPointer = (content: unknown, at: string): string | undefined =>
    content !== null && typeof content === "object" && "application/json" in content
      ? `${at}/content/application~1json/schema`
      : undefined;

  const index = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const itemPointer = `/paths/${escapePointerToken(path)}`;
    const shared = (item.parameters ?? []) as Json[];
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      const opPointer = `${itemPointer}/${method}`;
      const operationId = op.operationId;
      if (typeof operationId !== "string") throw new Error(`${method} ${path} has no operationId`);
      if (index.has(operationId)) throw new Error(`duplicate operationId ${operationId}`);

      // Operation-level parameters override path-level ones with the same name and location.
      const byKey = new Map<string, OperationParameter>();
      const addParameters = (list: Json[], listPointer: string) =>
        list.forEach((raw, i) => {
          const { value, pointer } = deref(raw, `${listPointer}/${i}`);
          const parameter: OperationParameter = {
            name: value.name as string,
            in: value.in as OperationParameter["in"],
            required: value.required === true,
            schemaPointer: `${pointer}/schema`,
          };
          byKey.set(`${parameter.in}:${parameter.name}`, parameter);
        });
      addParameters(shared, `${itemPointer}/parameters`);
      addParameters((op.parameters ?? []) as Json[], `${opPointer}/parameters`);

      let requestBody: Operation["requestBody"];
      if (op.requestBody !== undefined) {
        const { value, pointer } = deref(op.requestBody as Json, `${opPointer}/requestBody`);
        const schemaPointer = jsonSchemaPointer(value.content, pointer);
        if (schemaPointer === undefined) throw new Error(`${operationId}: request body is not JSON`);
        requestBody = { required: value.required === true, schemaPointer };
      }

      const responses = new Map<string, OperationResponse>();
      for (const [status, raw] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        const { value, pointer } = deref(raw, `${opPointer}/responses/${status}`);
        const headers = (value.headers ?? {}) as Record<string, Json>;
        const requiredHeaders = Object.entries(headers)
          .filter(([, header]) => deref(header, "").value.required === true)
          .map(([name]) => name.toLowerCase());
        const otherMediaTypes = Object.keys((value.content ?? {}) as Record<string, unknown>).filter((type) => type !== "application/json");
        responses.set(status, { schemaPointer: jsonSchemaPointer(value.content, pointer), requiredHeaders, otherMediaTypes });
      }

      // `security: []` on an operation switches off the document-wide bearer requirement.
      const security = (op.security ?? doc.security ?? []) as Json[];
      index.set(operationId, {
        operationId,
        method,
        path,
        routerPath: toRouterPath(path),
        authenticated: security.some((requirement) => "bearerAuth" in requirement),
        sessionAuthenticated: security.some((requirement) => "sessionCode" in requirement),
        agentSessionAuthenticated: security.some((requirement) => "agentSession" in requirement),
        parameters: [...byKey.values()],
        requestBody,
        responses,
      });
    }
  }
  return index;
}

/** Reads the value at a JSON pointer (`/a/b~1c`) inside `root`. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (current === null || typeof current !== "object" || !(token in current)) {
      throw new Error(`JSON pointer ${pointer} does not resolve`);
    }
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** Every operation of the gateway's document, by operationId. */
export const operations: ReadonlyMap<string, Operation> = indexOperations(openapiDocument);

/** The operation with this id; throws for an unknown id (a programming error). */
export function getOperation(operationId: string): Operation {
  const operation = operations.get(operationId);
  if (operation === undefined) throw new Error(`unknown operationId ${operationId}`);
  return operation;
}
