import { Router } from "@koa/router";
import Koa from "koa";
import { describe, expect, it } from "vitest";
import { dispatchRoutes } from "./route-dispatch.ts";
import { rememberStaticMatches } from "./route-matches.ts";
import type { GatewayMiddleware, GatewayRouter, GatewayState } from "./types.ts";

// What a handler and the middleware around it read of the routing.
function seen(ctx: Parameters<GatewayMiddleware>[0]) {
  const routed = ctx as typeof ctx & Record<string, unknown>;
  return {
    params: { ...ctx.params },
    requestParams: { ...(ctx.request as { params?: object }).params },
    captures: routed.captures,
    routerPath: routed.routerPath,
    routerName: routed.routerName,
    matchedRoute: routed._matchedRoute,
    matchedRouteName: routed._matchedRouteName,
    matched: (ctx.matched ?? []).map((layer) => layer.path),
  };
}

function app(dispatch: (router: GatewayRouter) => GatewayMiddleware) {
  const router: GatewayRouter = new Router<GatewayState>({ strict: true });
  const answer: GatewayMiddleware = (ctx) => {
    ctx.body = seen(ctx);
  };
  router.get("listGames", "/games", answer);
  router.get("getTicket", "/tickets/:ticketId", answer);
  router.get("getMessage", "/tickets/:ticketId/messages/:messageId", answer);
  router.post("createTicket", "/tickets", answer);
  // Two functions in one layer, and two layers for one path: the router's own dispatch.
  router.get("/docs", async (_ctx, next) => next(), answer);
  router.get("/twice", async (_ctx, next) => next());
  router.get("/twice", answer);
  rememberStaticMatches(router);
  const koa = new Koa();
  koa.use(dispatch(router) as Koa.Middleware);
  koa.use((ctx) => {
    ctx.status = 404;
    ctx.body = { unmatched: true };
  });
  return koa.callback();
}

async function call(handler: ReturnType<typeof app>, method: string, path: string) {
  const { createServer } = await import("node:http");
  const server = createServer(handler).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("dispatchRoutes", () => {
  it("leaves a handler the same context as the router's own dispatch", async () => {
    const shortcut = app(dispatchRoutes);
    const routerOnly = app((router) => router.routes() as GatewayMiddleware);
    const requests = [
      ["GET", "/games"], ["GET", "/tickets/t-1"], ["GET", "/tickets/t%2F2/messages/m-3"], ["POST", "/tickets"],
      ["GET", "/docs"], ["GET", "/twice"], ["GET", "/nowhere"], ["DELETE", "/games"], ["GET", "/games/"],
    ] as const;
    for (const [method, path] of requests) {
      const expected = await call(routerOnly, method, path);
      expect(await call(shortcut, method, path), `${method} ${path}`).toEqual(expected);
    }
    expect((await call(shortcut, "GET", "/tickets/t%2F2/messages/m-3")).body.params).toEqual({ ticketId: "t/2", messageId: "m-3" });
  });
});
