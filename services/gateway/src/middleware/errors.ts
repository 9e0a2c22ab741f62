// The one place where errors become HTTP responses: `{code, message, details?}`.
// Domain and RPC errors go through libs/rpc's mapping (a dependency that is unavailable or was
// lost mid-call is 503 with Retry-After, a passed deadline 504); anything else is a 500 whose
// message and stack are logged and never sent.
import type { Logger } from "@support/logging";
import { toHttpError, type HttpErrorResponse } from "@support/rpc";
import type { Middleware } from "koa";

/** An HTTP-level refusal that has no domain error code (405 method_not_allowed). */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    // A refusal is an answer, not a fault: its stack is never logged, and capturing one cost a
    // tenth of the gateway's CPU when it answered a flood of 429s.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "HttpProblem";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * The 429 of every rate limit: `rate_limited`, a message naming `what` was limited and when to
 * retry, `Retry-After` in whole seconds (at least 1), and the limit's own headers.
 */
export function rateLimited(what: string, retryAfterSeconds: number, headers: Record<string, string> = {}): HttpProblem {
  const seconds = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  return new HttpProblem(429, "rate_limited", `Too many requests ${what}; retry in ${seconds} seconds`, { "Retry-After": seconds, ...headers });
}

/**
 * The answer an error gets: an HttpProblem's own status, headers and `{code, message}`; any
 * other error libs/rpc's mapping (a read cannot have been half-applied: its 503 and 504 leave
 * out the outcome warning).
 */
export function errorAnswer(error: unknown, readOnly: boolean): { status: number; headers: Record<string, string>; body: { code: string; message: string; details?: HttpErrorResponse["body"]["details"] } } {
  if (error instanceof HttpProblem) return { status: error.status, headers: error.headers, body: { code: error.code, message: error.message } };
  return toHttpError(error, { readOnly });
}

export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      // Whatever the route had set before it failed, an error answer is never cached.
      ctx.set("Cache-Control", "no-store");
      const { status, headers, body } = errorAnswer(error, ctx.method === "GET" || ctx.method === "HEAD");
      if (!(error instanceof HttpProblem)) {
        if (status === 500) logger.error({ err: error, method: ctx.method, path: ctx.path }, "request failed");
        else if (status === 503 || status === 504) logger.warn({ err: error, method: ctx.method, path: ctx.path }, "dependency unavailable");
      }
      ctx.status = status;
      for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
      ctx.body = body;
    }
  };
}
