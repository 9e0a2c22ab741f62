// Every request runs in one request context (@support/logging), entered once:
// - its request id: the client's `x-request-id` when acceptable, else a new one; set on every
//   response, added to every log line and forwarded on every RPC;
// - its deadline: every internal call the request makes shares it. A call takes the smaller of
//   its own timeout (RPC_TIMEOUT_MS) and the time the request has left, so several calls in
//   sequence cannot add up to more than the request's budget; the call that runs out ends with
//   `deadline_exceeded`, which the error handler answers as 504 with the error body. A shared
//   cache fill runs under the deadline of the request that started it, which ends no later
//   than that of a request joining it.
import { REQUEST_ID_HEADER, requestIdFrom, withRequestContext } from "@support/logging";
import type { Context, Middleware } from "koa";

/** `budgetMsOf` gives each request its budget in milliseconds. */
export function requestContext(budgetMsOf: (ctx: Context) => number): Middleware {
  return (ctx, next) => {
    const requestId = requestIdFrom(ctx.get(REQUEST_ID_HEADER));
    ctx.set(REQUEST_ID_HEADER, requestId);
    return withRequestContext({ requestId, deadline: Date.now() + budgetMsOf(ctx) }, next);
  };
}
