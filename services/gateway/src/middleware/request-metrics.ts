// http_server_request_duration_seconds of every REST request, by method, route template (the
// router's, e.g. "/tickets/:ticketId"; "unmatched" when no route matched) and status. Never the
// path itself: ids would make a series per ticket. Each route, method and status is looked up
// once and its series kept, so a request costs one observation.
import { httpServerDuration, type HistogramSeries, type Registry } from "@support/metrics";
import type { Context } from "koa";
import { matchedRoute } from "../route-dispatch.ts";

/** Records an answered request with the status it was answered with. */
export function requestMetrics(registry: Registry): (ctx: Context, status: number, durationMs: number) => void {
  const histogram = httpServerDuration(registry);
  // route -> method -> status -> series. Bounded: routes are the router's templates, methods
  // the ones Node's parser accepts, statuses the ones the gateway answers.
  const cache = new Map<string, Map<string, Map<number, HistogramSeries>>>();
  const seriesOf = (route: string, method: string, status: number): HistogramSeries => {
    let byMethod = cache.get(route);
    if (!byMethod) cache.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) byStatus.set(status, (series = histogram.series({ method, route, status: String(status) })));
    return series;
  };
  return (ctx, status, durationMs) => {
    seriesOf(matchedRoute(ctx) ?? "unmatched", ctx.method, status).observe(durationMs / 1000);
  };
}
