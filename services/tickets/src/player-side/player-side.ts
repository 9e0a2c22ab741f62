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

/** How long a conversation's last message is in the player's list. */
export const PREVIEW_LENGTH = 140;

/**
 * A message as the list previews it: whitespace runs as one space, at most PREVIEW_LENGTH code
 * points, a longer one cut between user-perceived characters (never inside a surrogate pair, an
 * emoji sequence or a combined letter) and ended with an ellipsis.
 */
export function previewOf(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if ([...flat].length <= PREVIEW_LENGTH) return flat;
  let kept = "";
  let length = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(flat)) {
    const size = [...segment].length;
    if (length + size > PREVIEW_LENGTH - 1) break;
    kept += segment;
    length += size;
  }
  return `${kept.trimEnd()}…`;
}

/** What the player's list shows of a conversation besides its state. */
export interface ConversationActivity {
  lastMessage: { from: "player" | "agent"; preview: string; hasAttachments: boolean; at: Date } | null;
  /** Agent messages after the player last looked at the conversation. */
  unread: number;
}
