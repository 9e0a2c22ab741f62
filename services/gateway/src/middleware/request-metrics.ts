// http_server_request_duration_seconds of every REST request, by method, route template (the
// router's, e.g. "/tickets/:ticketId"; "unmatched" when no route matched) and status. Never the
// path itself: ids would make a series per ticket. The label objects are made once per
// route, method and status and reused, so a request costs a clock read and one observation.
import { httpServerDuration, type HttpLabel, type Registry } from "@support/metrics";
import type { Middleware } from "koa";

type Labels = Record<HttpLabel, string>;

export function requestMetrics(registry: Registry): Middleware {
  const histogram = httpServerDuration(registry);
  // route -> method -> status -> labels. Bounded: routes are the router's templates, methods
  // the ones Node's parser accepts, statuses the ones the gateway answers.
  const cache = new Map<string, Map<string, Map<number, Labels>>>();
  const labelsOf = (route: string, method: string, status: number): Labels => {
    let byMethod = cache.get(route);
    if (!byMethod) cache.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let labels = byStatus.get(status);
    if (!labels) byStatus.set(status, (labels = { method, route, status: String(status) }));
    return labels;
  };
  return async (ctx, next) => {
    const startedAt = performance.now();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } finally {
      // Set by @koa/router to the template of the route that handled the request.
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const route = typeof matched === "string" ? matched : "unmatched";
      histogram.observe(labelsOf(route, ctx.method, status), (performance.now() - startedAt) / 1000);
    }
  };
}
