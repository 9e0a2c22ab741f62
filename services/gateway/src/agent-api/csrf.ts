// Cross-site request forgery on /agent-api: a state-changing request must come from the
// support application's own origin (the Origin header, which a browser always sends on a
// POST and a page cannot forge), and, once signed in, carry the session's CSRF token, which
// only a page of that origin can read (GET /agent-api/me).
import { createHash, timingSafeEqual } from "node:crypto";
import { HttpProblem } from "../middleware/errors.ts";

export function csrfRefused(message: string): HttpProblem {
  return new HttpProblem(403, "permission_denied", `Cross-site request refused: ${message}`);
}

/** Throws the 403 unless `origin` (the Origin header) is exactly the application's origin; a missing one is refused. */
export function checkOrigin(origin: string | undefined, appOrigin: string | undefined): void {
  if (!origin) throw csrfRefused("the Origin header is missing");
  if (appOrigin === undefined || origin !== appOrigin) throw csrfRefused("the Origin header must be the support application's origin");
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Throws the 403 unless the X-CSRF-Token header equals the session's token. Compared as
 * SHA-256 digests with timingSafeEqual: equal lengths whatever was sent, and no early exit.
 */
export function checkCsrfToken(header: string | string[] | undefined, expected: string): void {
  if (typeof header !== "string" || header === "") throw csrfRefused("the X-CSRF-Token header is missing");
  if (expected === "" || !timingSafeEqual(digest(header), digest(expected))) throw csrfRefused("the X-CSRF-Token header does not match the session");
}
