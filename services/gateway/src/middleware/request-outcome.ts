// What is recorded of every answered request, from one clock: its access-log line and its
// observation in the request-duration histogram. Outside the error handler, so the status is
// the one sent, whatever answered it; inside the request context, so the line carries the
// request id.
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Middleware } from "koa";
import { accessLog } from "./access-log.ts";
import { requestMetrics } from "./request-metrics.ts";

export function requestOutcome(registry: Registry, logger: Logger): Middleware {
  const observe = requestMetrics(registry);
  const log = accessLog(logger);
  return async (ctx, next) => {
    const startedAt = performance.now();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } finally {
      const durationMs = performance.now() - startedAt;
      observe(ctx, status, durationMs);
      log(ctx, status, durationMs);
    }
  };
}
