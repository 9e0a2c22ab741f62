// One log line per request. The path is logged without its query string: queries may carry
// player e-mails and tokens (GET /tickets?email=..., /support/sessions/redirect?token=...).
import type { Logger } from "@support/logging";
import type { Context } from "koa";

/** Writes the access-log line of an answered request. */
export function accessLog(logger: Logger): (ctx: Context, status: number, durationMs: number) => void {
  // The line holds only the method, the path, the status and the duration, never a header or a
  // body: nothing for the redaction to find, which would otherwise visit each of its fields.
  const lines = logger.child({}, { redact: [] });
  return (ctx, status, durationMs) => {
    lines.info({ method: ctx.method, path: ctx.path, status, ms: Math.round(durationMs * 10) / 10 }, "request");
  };
}
