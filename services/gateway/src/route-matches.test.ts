import { Router } from "@koa/router";
import { describe, expect, it } from "vitest";
import { rememberStaticMatches } from "./route-matches.ts";
import type { GatewayRouter, GatewayState } from "./types.ts";

function routes(): GatewayRouter {
  const router: GatewayRouter = new Router<GatewayState>({ strict: true });
  const noop = async () => {};
  router.get("listGames", "/games", noop);
  router.get("getTicket", "/tickets/:ticketId", noop);
  router.post("createTicket", "/tickets", noop);
  router.get("listTickets", "/tickets", noop);
  return router;
}

const names = (result: ReturnType<GatewayRouter["match"]>) => ({
  path: result.path.map((layer) => layer.name),
  pathAndMethod: result.pathAndMethod.map((layer) => layer.name),
  route: result.route,
});

describe("rememberStaticMatches", () => {
  it("answers every request as the router does, the first time and after", () => {
    const plain = routes();
    const remembering = routes();
    rememberStaticMatches(remembering);
    const requests = [
      ["GET", "/games"], ["HEAD", "/games"], ["POST", "/games"], ["GET", "/games/"], ["GET", "/tickets"], ["POST", "/tickets"],
      ["GET", "/tickets/t-1"], ["GET", "/tickets/t-2"], ["DELETE", "/tickets/t-1"], ["GET", "/nowhere"],
    ] as const;
    for (let round = 0; round < 3; round++) {
      for (const [method, path] of requests) expect(names(remembering.match(path, method)), `${method} ${path}`).toEqual(names(plain.match(path, method)));
    }
  });

  it("hands out arrays of their own, so that a request changing its match does not change the next one's", () => {
    const router = routes();
    rememberStaticMatches(router);
    const first = router.match("/games", "GET");
    first.path.push(...router.match("/tickets", "GET").path);
    first.pathAndMethod.length = 0;
    expect(names(router.match("/games", "GET"))).toEqual({ path: ["listGames"], pathAndMethod: ["listGames"], route: true });
  });
});
