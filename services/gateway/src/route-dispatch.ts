// The router's dispatch, with a shortcut for the common case. For every request @koa/router
// builds a chain anew (a closure per matched layer that sets the params, then the layer's own
// middleware) and composes it. A gateway route is one layer holding one function, composed when
// it was mounted (routes/api.ts): a request that matches exactly such a layer gets the same
// context fields set here and calls that function directly. Anything else (several layers, a
// layer with several functions, no match) goes through the router's own middleware.
import type { GatewayMiddleware, GatewayRouter } from "./types.ts";

type RoutedContext = Parameters<GatewayMiddleware>[0] & {
  captures?: string[];
  routerPath?: string;
  routerName?: string | undefined;
  routeMatched?: boolean;
  _matchedRoute?: string | RegExp;
  _matchedRouteName?: string;
};

/**
 * The template of the route that handled the request (e.g. "/tickets/:ticketId"), as this
 * dispatch or @koa/router's sets it; undefined when no route matched (a 404).
 */
export function matchedRoute(ctx: object): string | undefined {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof route === "string" ? route : undefined;
}

export function dispatchRoutes(router: GatewayRouter): GatewayMiddleware {
  const routed = router.routes() as GatewayMiddleware;
  // A router bound to a host matches it first: keep that to the router.
  if (router.opts.host !== undefined) return routed;
  return (context, next) => {
    const match = router.match(context.path, context.method);
    const layer = match.pathAndMethod.length === 1 ? match.pathAndMethod[0]! : undefined;
    if (!match.route || layer === undefined || layer.stack.length !== 1) return routed(context, next);
    const ctx = context as RoutedContext;
    const captures = layer.paramNames.length === 0 ? [] : layer.captures(context.path);
    ctx.matched = ctx.matched ? [...ctx.matched, ...match.path] : match.path;
    ctx.router = router;
    ctx.routeMatched = true;
    ctx.captures = captures;
    ctx.request.params = layer.params(context.path, captures, ctx.params);
    ctx.params = ctx.request.params;
    ctx.routerPath = layer.path as string;
    ctx.routerName = layer.name ?? undefined;
    ctx._matchedRoute = layer.path;
    if (layer.name) ctx._matchedRouteName = layer.name;
    return layer.stack[0]!(ctx, next);
  };
}
