// The satisfaction survey of a resolved email ticket: its link made and mailed with the survey,
// the page the link opens, and the rating sent from it (to the tickets service, which keeps one
// rating per ticket whether it comes from the web page or from here).
import { isAppError } from "@support/errors";
import type { EmailContext } from "../context.ts";
import { findRatingLink, markRated } from "./rating.repository.ts";
import { renderRatingPage } from "./rating-page.ts";
import { hashRatingToken, isRatingToken, linkExpired } from "./rating.ts";

export interface RatingPage {
  /** The HTTP status to answer with: 200, 404 (unknown or expired link), 400 (no score chosen). */
  status: number;
  html: string;
}

async function linkOf(ctx: Pick<EmailContext, "db">, token: string, now: Date) {
  if (!isRatingToken(token)) return undefined;
  const tokenHash = hashRatingToken(token);
  const link = await findRatingLink(ctx.db, tokenHash);
  return link && !linkExpired(link.createdAt, now) ? { tokenHash, link } : undefined;
}

const invalid = (): RatingPage => ({ status: 404, html: renderRatingPage(undefined, { kind: "invalid" }) });

/** The page a link opens; `chosen` is the score of the link the player followed (nothing is recorded by opening it: mail scanners open links too). */
export async function ratingPage(ctx: EmailContext, token: string, chosen: number | undefined, now = new Date()): Promise<RatingPage> {
  const found = await linkOf(ctx, token, now);
  if (!found) return invalid();
  const { link } = found;
  if (link.score !== null) return { status: 200, html: renderRatingPage(link, { kind: "already", score: link.score }) };
  const score = chosen !== undefined && Number.isInteger(chosen) && chosen >= 1 && chosen <= 5 ? chosen : undefined;
  return { status: 200, html: renderRatingPage(link, { kind: "form", chosen: score, problem: false, review: "" }) };
}

/** The rating sent from the page: once per ticket; a missing score asks again. */
export async function submitRating(ctx: EmailContext, token: string, score: number | undefined, review: string, now = new Date()): Promise<RatingPage> {
  const found = await linkOf(ctx, token, now);
  if (!found) return invalid();
  const { link, tokenHash } = found;
  if (link.score !== null) return { status: 200, html: renderRatingPage(link, { kind: "already", score: link.score }) };
  if (score === undefined || !Number.isInteger(score) || score < 1 || score > 5) {
    return { status: 400, html: renderRatingPage(link, { kind: "form", chosen: undefined, problem: true, review }) };
  }
  try {
    await ctx.tickets.rate(link.companyId, link.ticketId, score, review.trim() === "" ? null : review.slice(0, 10_000));
  } catch (error) {
    // Rated meanwhile on the web page (or the ticket is gone): the page says the rating is taken.
    if (isAppError(error) && error.code === "conflict") {
      const ticket = await ctx.tickets.ticket(link.companyId, link.ticketId);
      const rated = ticket?.csatScore ?? score;
      await markRated(ctx.db, tokenHash, rated, now);
      return { status: 200, html: renderRatingPage(link, { kind: "already", score: rated }) };
    }
    if (isAppError(error) && error.code === "not_found") return invalid();
    throw error;
  }
  await markRated(ctx.db, tokenHash, score, now);
  ctx.logger.info({ ticketId: link.ticketId, score }, "ticket rated from the survey mail");
  return { status: 200, html: renderRatingPage(link, { kind: "thanks", score }) };
}
