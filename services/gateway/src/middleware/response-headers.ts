// Headers every answer of the gateway carries unless its route says otherwise:
// - `X-Content-Type-Options: nosniff`, always: a browser must take every answer for the type
//   it declares (a JSON error body echoing request text is never run as a script or a page);
// - `Cache-Control: no-store`, by default: API answers hold personal data (players' tickets,
//   names, emails, session codes) that no browser or proxy cache may keep. A route whose data
//   is not personal and is meant to be cached sets its own value over this one (the docs'
//   script, the web support page's hashed assets); error answers are never cached
//   (middleware/errors.ts sets no-store again). See docs/api-decisions.md, "Response headers".
import type { Middleware } from "koa";

export function responseHeaders(): Middleware {
  // Not an async function: set before the route runs, so that every answer, errors included,
  // starts with them, without a promise of its own.
  return (ctx, next) => {
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Cache-Control", "no-store");
    return next();
  };
}
