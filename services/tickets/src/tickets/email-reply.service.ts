// The player's answer by mail (the email service read it, threaded it to the ticket and checked
// that its sender is the ticket's player). On an open ticket it is a PLAYER_MESSAGE like one from
// the page: a waiting ticket goes back to work. A closed ticket with a follow-up (the ticket it
// was merged into, or the follow-up an earlier answer opened) passes it on to that one. On a
// closed ticket without one it opens a follow-up ticket, with the same player, game, environment
// and language, `reopenedFromTicketId` naming the closed one and the closed one's
// `followUpTicketId` naming it: a closed ticket's outcome (resolution, CSAT, webhooks' `closed`)
// stays as it was, and the new question gets a ticket of its own in the inbox.
import { validationError } from "@support/errors";
import type { TicketsContext } from "../context.ts";
import { messageIssues } from "./new-ticket.ts";
import { findTicket } from "./ticket.repository.ts";
import { appendPlayerMessage, claimAttachments, createTicket, getTicket, playerBlocked } from "./ticket.service.ts";
import type { Ticket } from "./ticket.ts";

/** How many follow-ups and merges a reply follows at most (a chain that long is a mistake, not a conversation). */
const MAX_HOPS = 10;

export interface EmailReplyResult {
  /** The ticket the message went to: the one answered, the one it was merged into, or the follow-up. */
  ticketId: string;
  eventId: string;
  /** Whether the message opened a follow-up of a closed ticket. */
  followUp: boolean;
}

/** The ticket a reply to `ticket` belongs to: a closed ticket's follow-up (its merge target, or the follow-up an earlier answer opened), and so on. */
async function destinationOf(ctx: TicketsContext, ticket: Ticket): Promise<Ticket> {
  let current = ticket;
  for (let hops = 0; hops < MAX_HOPS && current.status === "closed" && current.followUpTicketId !== null; hops++) {
    const target = await findTicket(ctx.db, current.companyId, current.followUpTicketId);
    if (target === undefined) break;
    current = target;
  }
  return current;
}

export async function addEmailReply(ctx: TicketsContext, input: { companyId: string; ticketId: string; message: string; attachments: string[] }): Promise<EmailReplyResult> {
  const issues = messageIssues(input.message, input.attachments);
  if (issues.length > 0) throw validationError(issues);
  const answered = await destinationOf(ctx, await getTicket(ctx, input.companyId, input.ticketId));

  // A blocked player's mail is refused like the player's new tickets (the email service drops it).
  const known = await ctx.players.findPlayer({
    companyId: answered.companyId, gameId: answered.gameId, externalId: answered.playerId, email: answered.playerId === null ? answered.email : null, name: null, tier: null,
  });
  if (known?.blocked) throw playerBlocked();

  if (answered.status !== "closed") {
    // The company's uploads (the email service stored them), claimed for this ticket and player.
    const attachments = await claimAttachments(ctx, {
      companyId: answered.companyId, gameId: answered.gameId, ticketId: answered.id, servicePlayerId: answered.servicePlayerId ?? undefined, attachmentIds: input.attachments,
    });
    const { ticket, eventId } = await appendPlayerMessage(ctx, answered, input.message, attachments, "email");
    return { ticketId: ticket.id, eventId, followUp: false };
  }
  const created = await createTicket(ctx, {
    supportSource: "EMAIL",
    companyId: answered.companyId,
    gameId: answered.gameId,
    environmentId: answered.gameEnvironmentId,
    player: { externalId: answered.playerId ?? undefined, email: answered.email ?? undefined, name: answered.playerName ?? undefined },
    message: input.message,
    attachmentIds: input.attachments,
    language: answered.language,
    channels: ["email"],
    platform: answered.platform,
    tags: [],
    fields: {},
    reopenedFromTicketId: answered.id,
  });
  return { ticketId: created.ticketId, eventId: created.messageEventId, followUp: true };
}

/**
 * A ticket from a player's mail to a game's support address: an email ticket of the player the
 * address names, checked like one from POST /tickets (a blocked player, a similar open ticket).
 */
export async function openEmailTicket(
  ctx: TicketsContext,
  input: { companyId: string; gameId: string; email: string; name: string | null; message: string; language: string; attachments: string[] },
): Promise<{ ticketId: string; runningId: number; eventId: string }> {
  const created = await createTicket(ctx, {
    supportSource: "EMAIL",
    companyId: input.companyId,
    gameId: input.gameId,
    player: { email: input.email, name: input.name ?? undefined },
    message: input.message,
    attachmentIds: input.attachments,
    language: input.language,
    channels: ["email"],
    tags: [],
    fields: {},
    skipDuplicateCheck: false,
  });
  return { ticketId: created.ticketId, runningId: created.runningId, eventId: created.messageEventId };
}
