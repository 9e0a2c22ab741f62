// One log line per request. The path is logged without its query string: queries may carry
// player e-mails and tokens (GET /tickets?email=..., /support/sessions/redirect?token=...).
import { infoLineWriter, type Logger } from "@support/logging";
import type { Context } from "koa";

/** Writes the access-log line of an answered request. */
export function accessLog(logger: Logger): (ctx: Context, status: number, durationMs: number) => void {
  // The line holds only the method, the path, the status and the duration, never a header or a
  // body: nothing to redact, so it is written without pino's general path.
  const line = infoLineWriter<{ method: string; path: string; status: number; ms: number }>(logger, "request");
  return (ctx, status, durationMs) => {
    line({ method: ctx.method, path: ctx.path, status, ms: Math.round(durationMs * 10) / 10 });
  };
}
