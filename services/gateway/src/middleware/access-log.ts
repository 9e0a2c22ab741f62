// One log line per request. The path is logged without its query string: queries may carry
// player e-mails and tokens (GET /tickets?email=..., /support/sessions/redirect?token=...).
import type { Logger } from "@support/logging";
import type { Middleware } from "koa";

export function accessLog(logger: Logger): Middleware {
  // The line holds only the method, the path, the status and the duration, never a header or a
  // body: nothing for the redaction to find, which would otherwise visit each of its fields.
  const lines = logger.child({}, { redact: [] });
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      lines.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms }, "request");
    }
  };
}
