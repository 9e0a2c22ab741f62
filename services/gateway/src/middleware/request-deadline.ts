// One deadline per REST request: every internal call the request makes shares it. A call takes
// the smaller of its own timeout (RPC_TIMEOUT_MS) and the time the request has left, so several
// calls in sequence cannot add up to more than the request's budget; the call that runs out
// ends with `deadline_exceeded`, which the error handler answers as 504 with the error body.
// A shared cache fill runs under the deadline of the request that started it, which ends no
// later than that of a request joining it.
import { withDeadline } from "@support/rpc";
import type { Context, Middleware } from "koa";

/** Opens the request's deadline scope; `budgetMsOf` gives each request its budget in milliseconds. */
export function requestDeadline(budgetMsOf: (ctx: Context) => number): Middleware {
  return (ctx, next) => withDeadline(budgetMsOf(ctx), () => next());
}
