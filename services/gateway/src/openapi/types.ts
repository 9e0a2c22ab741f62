// TypeScript view of the OpenAPI document: src/gen/openapi.ts is generated from openapi.yaml
// by openapi-typescript (`pnpm generate`); these helpers pick, per operationId, what its
// handler receives (path, query, body after validation) and what it may answer.
import type { components, operations } from "../gen/openapi.ts";

export type { components, operations };

/** The document's schemas by name (`Schemas["Ticket"]`). */
export type Schemas = components["schemas"];

/** Every operationId of the document. */
export type OperationId = keyof operations;

// An absent part (`query?: never`) is an empty object at run time: validation always sets it.
type Part<T> = [Exclude<T, undefined>] extends [never] ? Record<string, never> : Exclude<T, undefined>;

type JsonContent<T> = [T] extends [never] ? undefined : T extends { content: { "application/json": infer Body } } ? Body : undefined;

/**
 * What validation leaves in `ctx.state.validated` for the operation: path and query
 * parameters coerced to their schema types, the body with its defaults filled in.
 */
export interface Validated<Id extends OperationId> {
  params: Part<operations[Id]["parameters"]["path"]>;
  query: Part<operations[Id]["parameters"]["query"]>;
  body: JsonContent<Exclude<operations[Id]["requestBody"], undefined>> | (undefined extends operations[Id]["requestBody"] ? undefined : never);
}

type Responses<Id extends OperationId> = operations[Id]["responses"];

/** The statuses an operation answers when it succeeds (2xx and redirects). */
export type SuccessStatus<Id extends OperationId> = Extract<keyof Responses<Id>, 200 | 201 | 202 | 204 | 301 | 302 | 303 | 307 | 308>;

/** A response the document declares without content: Koa is given an empty string, so no body is sent. */
export type NoBody = "";

/** The JSON body of the operation's response with this status (`NoBody` when it has none). */
export type ResponseBody<Id extends OperationId, Status extends keyof Responses<Id>> =
  Responses<Id>[Status] extends { content: { "application/json": infer Body } } ? Body : NoBody;

/** Any body the operation may answer with when it succeeds. */
export type SuccessBody<Id extends OperationId> = { [Status in SuccessStatus<Id>]: ResponseBody<Id, Status> }[SuccessStatus<Id>];
