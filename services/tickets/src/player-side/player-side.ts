// Rules of the player side (the player's own web support page and SDK) that need no I/O: who owns a
// ticket, the CSAT checks.
import { conflict, validationError, type ValidationIssue } from "@support/errors";
import type { Ticket } from "../tickets/ticket.ts";

/** The session's company, game and player. */
export interface PlayerSideOwner {
  companyId: string;
  gameId: string;
  /** External player id; null for a session without one. */
  playerId: string | null;
  /** Lower-cased email; used only when there is no player id. */
  email: string | null;
}

export function toOwner(input: { companyId: string; gameId: string; playerId?: string | undefined; email?: string | undefined }): PlayerSideOwner {
  const playerId = input.playerId?.trim() ? input.playerId.trim() : null;
  const email = input.email?.trim() ? input.email.trim().toLowerCase() : null;
  return { companyId: input.companyId, gameId: input.gameId.toLowerCase(), playerId, email };
}

/** Whether the ticket is the owner's: same company and game, then the player id, or (without one) the email. */
export function ownsTicket(owner: PlayerSideOwner, ticket: Pick<Ticket, "companyId" | "gameId" | "playerId" | "email">): boolean {
  if (ticket.companyId !== owner.companyId || ticket.gameId !== owner.gameId) return false;
  if (owner.playerId !== null) return ticket.playerId === owner.playerId;
  return owner.email !== null && ticket.playerId === null && ticket.email?.toLowerCase() === owner.email;
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
