// The email channel's use cases: a mail for an agent's reply on an email ticket, the survey of
// one resolved, the list of a ticket's mails for the support application, the erasure of a
// ticket's mail.
import { randomUUID } from "node:crypto";
import type { EmailContext } from "../context.ts";
import { continueLink, knownGame } from "../games/game.service.ts";
import { insertRatingLink, deleteTicketRatingLinks } from "../ratings/rating.repository.ts";
import { hashRatingToken, newRatingToken, ratingLink } from "../ratings/rating.ts";
import { renderCsatMail, renderReplyMail, subjectOf } from "./mail-message.ts";
import { countWaiting, deleteTicketMail, ensureThread, insertMail, listTicketMails, mailExistsFor, threadMessageIds } from "./mail.repository.ts";
import { newMessageId, newReplyToken, replyAddressOf, sendsMail, type Mail } from "./mail.ts";

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

/** What became of a reply: a mail queued, none needed (not an email ticket, or queued before), or the queue is full and the reply must wait. */
export type ReplyMailOutcome = "queued" | "none" | "queue_full";

/**
 * Queues the mail of an agent's reply when the ticket is an email ticket with the player's
 * address; nothing otherwise. While the queue holds EMAIL_QUEUE_MAX mails, nothing is queued
 * and the caller holds the reply back.
 */
export async function mailAgentReply(ctx: EmailContext, reply: AgentReply): Promise<ReplyMailOutcome> {
  if (await mailExistsFor(ctx.db, reply.sourceEventId)) return "none";
  const ticket = await ctx.tickets.ticket(reply.companyId, reply.ticketId);
  if (ticket === undefined || !sendsMail(ticket)) return "none";
  if ((await countWaiting(ctx.db)) >= ctx.settings.queueMax) return "queue_full";

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

  const id = randomUUID();
  const inserted = await ctx.db.transaction().execute(async (trx) => {
    const token = await ensureThread(trx, reply.companyId, reply.ticketId, newReplyToken());
    const references = await threadMessageIds(trx, reply.companyId, reply.ticketId);
    return insertMail(trx, {
      id,
      companyId: reply.companyId,
      ticketId: reply.ticketId,
      eventId: reply.eventId,
      sourceEventId: reply.sourceEventId,
      kind: "agent_reply",
      toAddress: ticket.email,
      // The company's sender, chosen now and kept on the row: a retry sends what was queued.
      fromName: sender.name ?? rendered.fromName,
      fromAddress: sender.address,
      replyTo: replyAddressOf(ctx.settings.replyAddress, token),
      subject: rendered.subject,
      textBody: rendered.text,
      htmlBody: rendered.html,
      messageId: newMessageId(ctx.settings.fromAddress),
      references,
      // Written by a person, so not Auto-Submitted (RFC 3834); this asks auto-responders not to answer it.
      headers: { "X-Auto-Response-Suppress": "All" },
      now: new Date(),
    });
  });
  if (!inserted) return "none";
  ctx.wake();
  return "queued";
}

/**
 * Queues the satisfaction survey of an email ticket closed as resolved (a ticket rejected,
 * auto-closed or merged gets none; nor one already rated): a mail with a link per score to the
 * rating page, its token kept hashed. Automatic mail, so marked `Auto-Submitted: auto-generated`.
 */
export async function mailCsatRequest(ctx: EmailContext, closed: { sourceEventId: string; companyId: string; ticketId: string }): Promise<ReplyMailOutcome> {
  if (await mailExistsFor(ctx.db, closed.sourceEventId)) return "none";
  const ticket = await ctx.tickets.ticket(closed.companyId, closed.ticketId);
  if (ticket === undefined || !sendsMail(ticket) || ticket.resolutionType !== "resolved" || ticket.csatScore !== undefined) return "none";
  if ((await countWaiting(ctx.db)) >= ctx.settings.queueMax) return "queue_full";
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
  const inserted = await ctx.db.transaction().execute(async (trx) => {
    const replyToken = await ensureThread(trx, closed.companyId, closed.ticketId, newReplyToken());
    const references = await threadMessageIds(trx, closed.companyId, closed.ticketId);
    const queued = await insertMail(trx, {
      id: randomUUID(),
      companyId: closed.companyId,
      ticketId: closed.ticketId,
      eventId: null,
      sourceEventId: closed.sourceEventId,
      kind: "csat_request",
      toAddress: ticket.email,
      fromName: sender.name ?? rendered.fromName,
      fromAddress: sender.address,
      replyTo: replyAddressOf(ctx.settings.replyAddress, replyToken),
      subject: rendered.subject,
      textBody: rendered.text,
      htmlBody: rendered.html,
      messageId: newMessageId(ctx.settings.fromAddress),
      references,
      headers: { "Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All" },
      now: new Date(),
    });
    if (queued) {
      await insertRatingLink(trx, hashRatingToken(token), { companyId: closed.companyId, ticketId: closed.ticketId, language: ticket.language, gameName, runningId: ticket.runningId });
    }
    return queued;
  });
  if (!inserted) return "none";
  ctx.wake();
  return "queued";
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
