// Player-side use cases (the session code is the player's credential): list and read the player's
// tickets, add a player message, answer a collector, rate a resolved ticket. A chat ticket from the
// support page is opened by ticket.service's createTicket, like one from the REST API. Like the other
// use cases each runs in one transaction that also writes its domain events to the outbox; calls to
// players and media happen before it.
import { randomUUID } from "node:crypto";
import { writeEvents } from "@support/bus";
import { AppError, isUuid, notFound, validationError } from "@support/errors";
import type { TicketsContext } from "../context.ts";
import type { CollectorField, RecordedEvent } from "../ticket-events/event.ts";
import { insertEvents } from "../ticket-events/event.repository.ts";
import * as domain from "../tickets/domain-events.ts";
import { MAX_ATTACHMENTS, messageIssues } from "../tickets/new-ticket.ts";
import { findTicket, updateTicket } from "../tickets/ticket.repository.ts";
import { appendPlayerMessage, claimAttachments } from "../tickets/ticket.service.ts";
import { transition } from "../tickets/ticket-state.ts";
import type { Actor, Ticket } from "../tickets/ticket.ts";
import { checkCollectorResult, type CollectorFieldInput } from "./collector-result.ts";
import { checkCsat, ownsTicket, previewOf, type ConversationActivity, type PlayerSideOwner } from "./player-side.ts";
import { conversationActivity, listOwnedTicketIds, sessionOpenedTicket, setCsat, setLastPlayerMessageAt, upsertPlayerRead } from "./player-side.repository.ts";

/** At most this many of the player's tickets are listed (newest first). */
export const MAX_LISTED_TICKETS = 100;

export async function listPlayerTickets(ctx: TicketsContext, owner: PlayerSideOwner): Promise<Ticket[]> {
  if (!isUuid(owner.gameId) || (owner.sessionId === null && owner.playerId === null && owner.email === null)) return [];
  const ids = await listOwnedTicketIds(ctx.db, owner, MAX_LISTED_TICKETS);
  const tickets = await Promise.all(ids.map((id) => findTicket(ctx.db, owner.companyId, id)));
  return tickets.filter((ticket) => ticket !== undefined);
}

/** The player's tickets (as listPlayerTickets) with each conversation's last message and unread count. */
export async function listPlayerConversations(ctx: TicketsContext, owner: PlayerSideOwner): Promise<{ ticket: Ticket; activity: ConversationActivity }[]> {
  const tickets = await listPlayerTickets(ctx, owner);
  const activity = await conversationActivity(ctx.db, tickets.map((ticket) => ticket.id));
  return tickets.map((ticket) => {
    const row = activity.get(ticket.id);
    const last = row?.lastFrom && row.lastAt ? { from: row.lastFrom, preview: previewOf(row.lastText ?? ""), hasAttachments: row.lastHasAttachments, at: row.lastAt } : null;
    return { ticket, activity: { lastMessage: last, unread: row?.unread ?? 0 } };
  });
}

/** The player looked at one of their conversations now: its agent messages so far are read. */
export async function markPlayerTicketRead(ctx: TicketsContext, owner: PlayerSideOwner, ticketId: string): Promise<void> {
  const ticket = await getPlayerTicket(ctx, owner, ticketId);
  await upsertPlayerRead(ctx.db, { companyId: ticket.companyId, ticketId: ticket.id, at: new Date() });
}

/** One of the owner's tickets; NOT_FOUND for any other (another player's, game's or company's). */
export async function getPlayerTicket(ctx: TicketsContext, owner: PlayerSideOwner, ticketId: string): Promise<Ticket> {
  const ticket = isUuid(ticketId) ? await findTicket(ctx.db, owner.companyId, ticketId.toLowerCase()) : undefined;
  const mine = ticket !== undefined && ticket.companyId === owner.companyId && ticket.gameId === owner.gameId &&
    (ownsTicket(owner, ticket) || (owner.sessionId !== null && (await sessionOpenedTicket(ctx.db, owner.sessionId, ticket.id))));
  if (!mine) throw notFound("ticket not found");
  return ticket;
}

/** A player message: PLAYER_MESSAGE event; a waiting ticket goes back to assigned or unassigned; 409 on a closed one. */
export async function addPlayerMessage(
  ctx: TicketsContext,
  input: { owner: PlayerSideOwner; ticketId: string; message: string; attachments: string[] },
): Promise<{ ticket: Ticket; eventId: string }> {
  const issues = messageIssues(input.message, input.attachments);
  if (issues.length > 0) throw validationError(issues);
  const current = await getPlayerTicket(ctx, input.owner, input.ticketId);
  if (current.status === "closed") throw new AppError("conflict", "The ticket is closed");
  const attachments = await claimAttachments(ctx, {
    companyId: current.companyId, gameId: current.gameId, ticketId: current.id, servicePlayerId: current.servicePlayerId ?? "", sessionId: input.owner.sessionId ?? undefined, attachmentIds: input.attachments,
  });

  return appendPlayerMessage(ctx, current, input.message, attachments, "chat");
}

/** CSAT: only for a ticket closed as resolved, once; sets the score and appends a CSAT event. */
export async function submitCsat(
  ctx: TicketsContext,
  input: { owner: PlayerSideOwner; ticketId: string; score: number; review: string | null },
): Promise<Ticket> {
  return rateTicket(ctx, await getPlayerTicket(ctx, input.owner, input.ticketId), input.score, input.review);
}

/**
 * The rating itself, once whoever rates is known to be the ticket's player (the session's own
 * ticket, or the link of the survey mailed to the player): only a ticket closed as resolved,
 * once (409 otherwise), with a CSAT event by the player.
 */
export async function rateTicket(ctx: TicketsContext, current: Ticket, score: number, givenReview: string | null): Promise<Ticket> {
  const review = givenReview?.trim() ? givenReview.trim() : null;
  checkCsat(current, score, review);
  return ctx.db.transaction().execute(async (trx) => {
    const locked = await findTicket(trx, current.companyId, current.id, true);
    if (!locked) throw notFound("ticket not found");
    checkCsat(locked, score, review);
    const now = new Date();
    await setCsat(trx, locked.id, score, review, now);
    const updated: Ticket = { ...locked, csatScore: score, csatReview: review, lastActivityAt: now };
    const actor: Actor = { type: "player", id: locked.servicePlayerId };
    const csat: RecordedEvent = { id: randomUUID(), type: "CSAT", data: { score, review }, actor };
    await insertEvents(trx, locked, [csat]);
    await writeEvents(trx, [domain.ticketRated(updated, csat)]);
    return updated;
  });
}

/**
 * A collector answer: a COLLECTOR_RESULT event. It counts as the player's answer like a
 * message: a waiting ticket goes back to work, the last player message time moves; 409 on a
 * closed ticket. FILE fields' attachments are claimed like a message's.
 */
export async function addCollectorResult(
  ctx: TicketsContext,
  input: { owner: PlayerSideOwner; ticketId: string; collectorId: string; title: string; fields: CollectorFieldInput[] },
): Promise<{ ticket: Ticket; resultId: string; eventId: string }> {
  const result = checkCollectorResult(input);
  const current = await getPlayerTicket(ctx, input.owner, input.ticketId);
  if (current.status === "closed") throw new AppError("conflict", "The ticket is closed");
  const attachmentIds = result.fields.flatMap((field) => field.attachmentIds ?? []);
  if (attachmentIds.length > MAX_ATTACHMENTS) throw validationError([{ path: "/fields", message: `must have at most ${MAX_ATTACHMENTS} attachments in all` }]);
  const claimed = new Set(
    (await claimAttachments(ctx, {
      companyId: current.companyId, gameId: current.gameId, ticketId: current.id, servicePlayerId: current.servicePlayerId ?? "", sessionId: input.owner.sessionId ?? undefined, attachmentIds,
    })).map((attachment) => attachment.id),
  );
  const fields: CollectorField[] = result.fields.map(({ attachmentIds: ids, ...field }) =>
    field.type === "FILE" ? { ...field, attachments: [...new Set(ids ?? [])].filter((id) => claimed.has(id)).map((id) => ({ id })) } : field,
  );
  const resultId = randomUUID();

  return ctx.db.transaction().execute(async (trx) => {
    const locked = await findTicket(trx, current.companyId, current.id, true);
    if (!locked) throw notFound("ticket not found");
    const now = new Date();
    const moved = transition(locked, { type: "playerMessage" }, now);
    if (!moved.ok || locked.status === "closed") throw new AppError("conflict", "The ticket is closed");
    const actor: Actor = { type: "player", id: locked.servicePlayerId };
    const updated = await updateTicket(trx, locked.id, { status: moved.state.status, waitingSince: moved.state.waitingSince, lastActivityAt: now });
    await setLastPlayerMessageAt(trx, locked.id, now);
    const event: RecordedEvent = {
      id: randomUUID(), type: "COLLECTOR_RESULT", data: { collectorId: result.collectorId, resultId, title: result.title, fields }, actor,
    };
    const answered: Ticket = { ...updated, lastPlayerMessageAt: now, lastActivityAt: now };
    const recorded: RecordedEvent[] = [event];
    const outbox = [domain.collectorResultAdded(answered, event)];
    if (updated.status !== locked.status) {
      recorded.unshift({ id: randomUUID(), type: "STATUS_CHANGED", data: { from: locked.status, to: updated.status }, actor });
      outbox.unshift(domain.statusChanged(answered, locked.status, actor));
    }
    await insertEvents(trx, locked, recorded);
    await writeEvents(trx, outbox);
    return { ticket: answered, resultId, eventId: event.id };
  });
}
