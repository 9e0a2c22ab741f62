// The survey links of resolved tickets: an unguessable token per ticket (kept only as its hash),
// valid until the ticket is rated or RATING_LINK_DAYS have passed.
import { createHash, randomBytes } from "node:crypto";

export const RATING_LINK_DAYS = 30;

export function newRatingToken(): string {
  return randomBytes(24).toString("base64url");
}

export function hashRatingToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The rating page of a token, with a score chosen: `<WEB_SUPPORT_URL>rate/<token>?score=<n>`. */
export function ratingLink(webSupportUrl: string, token: string, score: number): string {
  const base = webSupportUrl.endsWith("/") ? webSupportUrl : `${webSupportUrl}/`;
  return `${base}rate/${encodeURIComponent(token)}?score=${score}`;
}

/** A token is well-formed base64url of 24 bytes; anything else is not looked up. */
export function isRatingToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{32}$/.test(token);
}

export function linkExpired(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() > RATING_LINK_DAYS * 86_400_000;
}
