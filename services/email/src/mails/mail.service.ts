// The email channel's use cases: a mail for an agent's reply on an email ticket, the survey of
// one resolved, the list of a ticket's mails for the support application, the erasure of a
// ticket's mail.
import { randomUUID } from "node:crypto";
import type { CompanySender, EmailContext, TicketForMail } from "../context.ts";
import { continueLink, knownGame } from "../games/game.service.ts";
import { insertRatingLink, deleteTicketRatingLinks } from "../ratings/rating.repository.ts";
import { hashRatingToken, newRatingToken, ratingLink } from "../ratings/rating.ts";
import type { Transaction } from "kysely";
import type { EmailDatabase } from "../database.ts";
import { renderCsatMail, renderReplyMail, subjectOf, type RenderedMail } from "./mail-message.ts";
import { countWaiting, deleteTicketMail, ensureThread, insertMail, listTicketMails, mailExistsFor, threadMessageIds } from "./mail.repository.ts";
import { newMessageId, newReplyToken, replyAddressOf, sendsMail, type Mail, type MailKind } from "./mail.ts";

/** An agent's message added to a ticket (tickets.ticket.message_added of type AGENT_MESSAGE). */
export interface AgentReply {
  /** The domain event's id: one mail per event, however often it is delivered. */
  sourceEventId: string;
  companyId: string;
  ticketId: string;
  /** The ticket event (the AGENT_MESSAGE). */
  eventId: string;
  message: string;
  occurredAt: Date;
}

/** What became of a reply or a survey: a mail queued, none needed (not an email ticket, or queued before), or the queue is full and the event must wait. */
export type ReplyMailOutcome = "queued" | "none" | "queue_full";

/** The ticket a domain event asks a mail for, when one is to be queued: new, of an email ticket, with room in the queue. */
async function ticketToMail(
  ctx: EmailContext,
  event: { sourceEventId: string; companyId: string; ticketId: string },
  wanted: (ticket: TicketForMail) => boolean = () => true,
): Promise<(TicketForMail & { email: string }) | "none" | "queue_full"> {
  if (await mailExistsFor(ctx.db, event.sourceEventId)) return "none";
  const ticket = await ctx.tickets.ticket(event.companyId, event.ticketId);
  if (ticket === undefined || !sendsMail(ticket) || !wanted(ticket)) return "none";
  if ((await countWaiting(ctx.db)) >= ctx.settings.queueMax) return "queue_full";
  return ticket;
}

/**
 * Queues one mail of a ticket, threaded under the ticket's earlier mails, from the company's
 * sender (chosen now and kept on the row: a retry sends what was queued), answered to the
 * ticket's reply address. `alongside` runs in the same transaction once the mail is queued.
 */
async function queueTicketMail(
  ctx: EmailContext,
  event: { sourceEventId: string; companyId: string; ticketId: string; eventId: string | null },
  mail: { kind: MailKind; toAddress: string; rendered: RenderedMail; sender: CompanySender; headers: Record<string, string> },
  alongside?: (trx: Transaction<EmailDatabase>) => Promise<void>,
): Promise<ReplyMailOutcome> {
  const inserted = await ctx.db.transaction().execute(async (trx) => {
    const token = await ensureThread(trx, event.companyId, event.ticketId, newReplyToken());
    const references = await threadMessageIds(trx, event.companyId, event.ticketId);
    const queued = await insertMail(trx, {
      id: randomUUID(),
      companyId: event.companyId,
      ticketId: event.ticketId,
      eventId: event.eventId,
      sourceEventId: event.sourceEventId,
      kind: mail.kind,
      toAddress: mail.toAddress,
      fromName: mail.sender.name ?? mail.rendered.fromName,
      fromAddress: mail.sender.address,
      replyTo: replyAddressOf(ctx.settings.replyAddress, token),
      subject: mail.rendered.subject,
      textBody: mail.rendered.text,
      htmlBody: mail.rendered.html,
      messageId: newMessageId(ctx.settings.fromAddress),
      references,
      headers: mail.headers,
      now: new Date(),
    });
    if (queued) await alongside?.(trx);
    return queued;
  });
  if (!inserted) return "none";
  ctx.wake();
  return "queued";
}

/**
 * Queues the mail of an agent's reply when the ticket is an email ticket with the player's
 * address; nothing otherwise. While the queue holds EMAIL_QUEUE_MAX mails, nothing is queued
 * and the caller holds the reply back.
 */
export async function mailAgentReply(ctx: EmailContext, reply: AgentReply): Promise<ReplyMailOutcome> {
  const ticket = await ticketToMail(ctx, reply);
  if (typeof ticket === "string") return ticket;

  const [conversation, gameName, game, sender] = await Promise.all([
    ctx.tickets.conversation(reply.companyId, reply.ticketId),
    ctx.games.nameOf(reply.companyId, ticket.gameId),
    knownGame(ctx, ticket.gameId),
    ctx.senders.senderOf(reply.companyId),
  ]);
  const first = conversation.find((message) => message.fromPlayer);
  const earlier = conversation
    .filter((message) => message.id !== reply.eventId && message.createdAt.getTime() <= reply.occurredAt.getTime())
    .slice(-ctx.settings.quotedMessages)
    .reverse();
  const rendered = renderReplyMail({
    language: ticket.language,
    gameName,
    runningId: ticket.runningId,
    subjectLine: subjectOf(first?.message ?? ""),
    message: reply.message,
    earlier: earlier.map((message) => ({ fromPlayer: message.fromPlayer, at: message.createdAt, message: message.message })),
    continueUrl: continueLink(ctx.settings.webSupportUrl, game, { email: ticket.email, language: ticket.language }),
  });
  // Written by a person, so not Auto-Submitted (RFC 3834); this asks auto-responders not to answer it.
  return queueTicketMail(ctx, reply, { kind: "agent_reply", toAddress: ticket.email, rendered, sender, headers: { "X-Auto-Response-Suppress": "All" } });
}

/**
 * Queues the satisfaction survey of an email ticket closed as resolved (a ticket rejected,
 * auto-closed or merged gets none; nor one already rated): a mail with a link per score to the
 * rating page, its token kept hashed. Automatic mail, so marked `Auto-Submitted: auto-generated`.
 */
export async function mailCsatRequest(ctx: EmailContext, closed: { sourceEventId: string; companyId: string; ticketId: string }): Promise<ReplyMailOutcome> {
  const ticket = await ticketToMail(ctx, closed, (candidate) => candidate.resolutionType === "resolved" && candidate.csatScore === undefined);
  if (typeof ticket === "string") return ticket;
  const [conversation, gameName, sender] = await Promise.all([
    ctx.tickets.conversation(closed.companyId, closed.ticketId),
    ctx.games.nameOf(closed.companyId, ticket.gameId),
    ctx.senders.senderOf(closed.companyId),
  ]);
  const token = newRatingToken();
  const links = [1, 2, 3, 4, 5].map((score) => ratingLink(ctx.settings.webSupportUrl, token, score)) as [string, string, string, string, string];
  const rendered = renderCsatMail({
    language: ticket.language,
    gameName,
    runningId: ticket.runningId,
    subjectLine: subjectOf(conversation.find((message) => message.fromPlayer)?.message ?? ""),
    links,
  });
  return queueTicketMail(
    ctx,
    { ...closed, eventId: null },
    { kind: "csat_request", toAddress: ticket.email, rendered, sender, headers: { "Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All" } },
    (trx) => insertRatingLink(trx, hashRatingToken(token), { companyId: closed.companyId, ticketId: closed.ticketId, language: ticket.language, gameName, runningId: ticket.runningId }),
  );
}

export async function listMails(ctx: Pick<EmailContext, "db">, companyId: string, ticketId: string): Promise<Mail[]> {
  return listTicketMails(ctx.db, companyId, ticketId);
}

/** Erases a ticket's mails with their texts and addresses (the ticket was deleted with its player's data). */
export async function eraseTicketMail(ctx: Pick<EmailContext, "db" | "logger">, companyId: string, ticketId: string): Promise<void> {
  const deleted = await deleteTicketMail(ctx.db, companyId, ticketId);
  await deleteTicketRatingLinks(ctx.db, companyId, ticketId);
  if (deleted > 0) ctx.logger.info({ companyId, ticketId, mails: deleted }, "ticket's mails erased");
}
