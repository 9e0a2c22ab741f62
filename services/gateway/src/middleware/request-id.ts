// Every request runs under a request id (the client's `x-request-id` when acceptable, else a
// new one) that is set on every response, added to every log line and forwarded on every RPC.
import { REQUEST_ID_HEADER, requestIdFrom, withRequestId } from "@support/logging";
import type { Middleware } from "koa";

export function requestId(): Middleware {
  return (ctx, next) => {
    const id = requestIdFrom(ctx.get(REQUEST_ID_HEADER));
    ctx.set(REQUEST_ID_HEADER, id);
    return withRequestId(id, next);
  };
}
