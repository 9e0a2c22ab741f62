// The page the satisfaction survey's links open (the survey is mailed to the player of a
// resolved email ticket): GET /support/rate/<token>?score=<n> shows it, POST sends the rating,
// and /support/rate.css is its stylesheet. The email service owns the page (its texts are the
// mail's, in the ticket's language) and the link; the gateway serves it under a CSP that allows
// no script, the form posting to itself only, and keeps the link out of any Referer.
import type { Context } from "koa";
import parse from "co-body";
import type { EmailClient } from "../clients.ts";
import type { GatewayRouter } from "../types.ts";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** A rating form is a score and a comment of at most 10,000 characters. */
const FORM_LIMIT_BYTES = 64 * 1024;

const UNAVAILABLE_PAGE =
  "<!doctype html><html lang=en><meta charset=utf-8><title>Try again later</title><h1>The rating page is not available right now</h1><p>Please try again in a few minutes.</p></html>";

function answerPage(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  ctx.set("Referrer-Policy", "no-referrer");
  ctx.set("Cache-Control", "no-store");
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.body = html;
}

/** A score of the form or the link: "1" to "5", anything else none. */
const scoreOf = (value: unknown): number | undefined => (typeof value === "string" && /^[1-5]$/.test(value) ? Number(value) : undefined);

export function registerRatingPageRoutes(router: GatewayRouter, deps: { email: EmailClient }): void {
  let stylesheet: string | undefined;

  router.get("/support/rate.css", async (ctx) => {
    try {
      // The stylesheet comes with any page; an empty token asks for the "not valid" one.
      stylesheet ??= (await deps.email.getRatingPage({ token: "" })).stylesheet;
    } catch {
      ctx.status = 503;
      return;
    }
    ctx.type = "text/css; charset=utf-8";
    ctx.set("Cache-Control", "public, max-age=3600");
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.body = stylesheet;
  });

  router.get("/support/rate/:token", async (ctx) => {
    try {
      const page = await deps.email.getRatingPage({ token: ctx.params.token, score: scoreOf(ctx.query.score) });
      stylesheet ??= page.stylesheet;
      answerPage(ctx, page.httpStatus, page.html);
    } catch {
      answerPage(ctx, 503, UNAVAILABLE_PAGE);
    }
  });

  router.post("/support/rate/:token", async (ctx) => {
    let form: Record<string, unknown>;
    try {
      form = ctx.is("application/x-www-form-urlencoded") ? ((await parse.form(ctx, { limit: FORM_LIMIT_BYTES })) as Record<string, unknown>) : {};
    } catch {
      form = {};
    }
    try {
      const review = typeof form.review === "string" ? form.review : "";
      const page = await deps.email.submitRating({ token: ctx.params.token, score: scoreOf(form.score), review });
      answerPage(ctx, page.httpStatus, page.html);
    } catch {
      answerPage(ctx, 503, UNAVAILABLE_PAGE);
    }
  });
}
