// Response helpers for the cached reference reads.
import type { Context } from "koa";
import type { CoalescingCache, ReferenceBody } from "../cache.ts";
import type { OperationId, SuccessBody } from "../openapi/types.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Serializes a success body of the operation, typed against the document, to the UTF-8 bytes
 * that are cached and sent: a cache hit then costs neither an encoding nor a length scan.
 */
export function serialize<Id extends OperationId>(_operationId: Id, body: SuccessBody<Id>): Buffer {
  return Buffer.from(JSON.stringify(body));
}

/** Sends an already serialized JSON body (the cached form of reference reads). */
export function sendJson(ctx: Context, json: ReferenceBody): void {
  ctx.set("Content-Type", JSON_TYPE);
  ctx.body = json;
}

/**
 * Sends the company's cached JSON for a reference read, loading it on a miss. A hit stays
 * synchronous: no promise, no RPC, no serialization.
 */
export function sendCached(ctx: Context, cache: CoalescingCache<ReferenceBody>, companyId: string, load: (companyId: string) => Promise<ReferenceBody>): Promise<void> | void {
  const found = cache.get(companyId, load);
  if (found instanceof Promise) return found.then((json) => sendJson(ctx, json));
  sendJson(ctx, found);
}
