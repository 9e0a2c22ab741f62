// Idempotency-Key on the API key's POST and DELETE operations. The gateway keeps no state of
// its own: it checks the key, fingerprints the request (method, route template, parameters,
// query and body, after validation) and hands both to every service call the operation makes,
// through the client interceptor below. The service records the answer in the same
// transaction as the work and marks a replay with `idempotent-replayed`, which becomes the
// `Idempotent-Replayed: true` response header here. The REST body is rendered from the RPC
// answer, so a replayed answer gives the same status and body.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Interceptor } from "@connectrpc/connect";
import { validationError } from "@support/errors";
import {
  IDEMPOTENCY_FINGERPRINT_HEADER, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyProblem, requestFingerprint,
} from "@support/idempotency";
import type { Middleware } from "koa";
import type { Operation } from "../openapi/operations.ts";
import type { ValidatedRequest } from "../openapi/validation.ts";

interface IdempotentCall {
  key: string;
  fingerprint: string;
  replayed: boolean;
}

const calls = new AsyncLocalStorage<IdempotentCall>();

/** Whether an operation takes an Idempotency-Key: every POST and DELETE behind an API key. */
export function takesIdempotencyKey(operation: Pick<Operation, "method" | "authenticated">): boolean {
  return operation.authenticated && (operation.method === "post" || operation.method === "delete");
}

/**
 * Runs after request validation: `ctx.state.validated` is what the fingerprint covers, and
 * `principalOf` (when given) who sends it, for routes whose keys several users share.
 */
export function idempotencyKey(
  operation: Pick<Operation, "method" | "path">,
  principalOf?: (state: object) => string,
): Middleware<{ validated: ValidatedRequest }> {
  return async (ctx, next) => {
    const key = ctx.get("Idempotency-Key");
    if (ctx.request.headers["idempotency-key"] === undefined) return next();
    const problem = idempotencyKeyProblem(key);
    if (problem !== undefined) throw validationError([{ path: "/header/Idempotency-Key", message: problem }]);
    const { params, query, body } = ctx.state.validated;
    const call: IdempotentCall = { key, fingerprint: requestFingerprint({ method: operation.method, route: operation.path, params, query, body, principal: principalOf?.(ctx.state) }), replayed: false };
    await calls.run(call, next);
    if (call.replayed) ctx.set("Idempotent-Replayed", "true");
  };
}

/** Client interceptor: the key and fingerprint of the request being served go with each call it makes. */
export const idempotencyInterceptor: Interceptor = (next) => async (request) => {
  const call = calls.getStore();
  if (call === undefined) return next(request);
  request.header.set(IDEMPOTENCY_KEY_HEADER, call.key);
  request.header.set(IDEMPOTENCY_FINGERPRINT_HEADER, call.fingerprint);
  const response = await next(request);
  if (response.header.get(IDEMPOTENT_REPLAYED_HEADER) === "true") call.replayed = true;
  return response;
};
