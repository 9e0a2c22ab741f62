// Rules of the player side (the player's own web support page and SDK) that need no I/O: who owns a
// ticket, the CSAT checks.
import { conflict, isUuid, validationError, type ValidationIssue } from "@support/errors";
import type { Ticket } from "../tickets/ticket.ts";

/**
 * Who asks on the player side: the session's company, game and session, and the identity the
 * session has proven. The gateway sends only a verified player id (signed metadata) and a
 * verified email (signed, or proven with an emailed code); an unverified session has neither
 * and sees only the tickets it opened itself.
 */
export interface PlayerSideOwner {
  companyId: string;
  gameId: string;
  /** The web support session; null only for callers that name none. */
  sessionId: string | null;
  /** Verified external player id; null without one. */
  playerId: string | null;
  /** Verified email, lower-cased. */
  email: string | null;
}

export function toOwner(input: {
  companyId: string;
  gameId: string;
  sessionId?: string | undefined;
  playerId?: string | undefined;
  email?: string | undefined;
}): PlayerSideOwner {
  const sessionId = input.sessionId && isUuid(input.sessionId) ? input.sessionId.toLowerCase() : null;
  const playerId = input.playerId?.trim() ? input.playerId.trim() : null;
  const email = input.email?.trim() ? input.email.trim().toLowerCase() : null;
  return { companyId: input.companyId, gameId: input.gameId.toLowerCase(), sessionId, playerId, email };
}

/**
 * Whether the ticket belongs to the owner's verified identity, within the same company and game:
 * - with a verified player id: the tickets of that id, and those of the verified email that
 *   name no player id (another account sharing the address keeps its own tickets);
 * - with a verified email only (the player proved the mailbox, where replies to those tickets
 *   go anyway): every ticket of that email.
 * Tickets the session opened itself are the owner's too (session_tickets, checked by the service).
 */
export function ownsTicket(owner: PlayerSideOwner, ticket: Pick<Ticket, "companyId" | "gameId" | "playerId" | "email">): boolean {
  if (ticket.companyId !== owner.companyId || ticket.gameId !== owner.gameId) return false;
  const sameEmail = owner.email !== null && ticket.email?.toLowerCase() === owner.email;
  if (owner.playerId !== null) return ticket.playerId === owner.playerId || (sameEmail && ticket.playerId === null);
  return sameEmail;
}

export const MAX_REVIEW_LENGTH = 10_000;

/** CSAT: a ticket closed as resolved, rated once, 1..5; rejected tickets get no survey. */
export function checkCsat(ticket: Pick<Ticket, "status" | "resolutionType" | "csatScore">, score: number, review: string | null): void {
  const issues: ValidationIssue[] = [];
  if (!Number.isInteger(score) || score < 1 || score > 5) issues.push({ path: "/score", message: "must be an integer from 1 to 5" });
  if (review !== null && review.length > MAX_REVIEW_LENGTH) issues.push({ path: "/review", message: `must be at most ${MAX_REVIEW_LENGTH} characters` });
  if (issues.length > 0) throw validationError(issues);
  if (ticket.status !== "closed" || ticket.resolutionType !== "resolved") {
    throw conflict("Only a ticket closed as resolved can be rated");
  }
  if (ticket.csatScore !== null) throw conflict("The ticket has already been rated");
}
