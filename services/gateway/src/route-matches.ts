// @koa/router tests the regular expression of every route on every request (and calls `debug`
// for each). A path without parameters always matches the same routes: its match is kept per
// method and path, so that e.g. GET /games costs one map lookup. Paths with parameters (ids)
// and unknown paths are matched as before, so the map holds at most the router's own paths.
import type { GatewayRouter } from "./types.ts";

type MatchResult = ReturnType<GatewayRouter["match"]>;

/** Replaces `router.match` with the same matching, remembered for parameterless routes. */
export function rememberStaticMatches(router: GatewayRouter): void {
  const match = router.match.bind(router);
  const remembered = new Map<string, MatchResult>();
  // Copies: the router keeps the arrays on the request's context.
  const copy = (result: MatchResult): MatchResult => ({ ...result, path: [...result.path], pathAndMethod: [...result.pathAndMethod] });
  router.match = (path, method) => {
    const key = `${method} ${path}`;
    const known = remembered.get(key);
    if (known !== undefined) return copy(known);
    const result = match(path, method);
    if (result.route && result.path.every((layer) => layer.paramNames.length === 0)) remembered.set(key, copy(result));
    return result;
  };
}
