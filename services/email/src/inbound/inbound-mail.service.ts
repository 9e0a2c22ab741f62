// What becomes of a mail a player sent to the support addresses. In order: automatic mail is
// dropped (an auto-reply never answered, a bounce marks the mail it returns); a mail delivered
// twice is taken once; the ticket is found by the reply token of the address, else by the
// Message-IDs it answers (a mail that answers none opens a ticket when it went to a game's
// support address); a sender who is not the ticket's player is held for an agent, never
// posted (the token alone admits nothing); past the hourly limits per sender and per ticket mail
// is dropped (a loop between two auto-responders stops there); then the player's own text, quotes
// and signature removed, becomes a message of the ticket (or of its follow-up). Every mail is
// recorded with its outcome, and counted.
import { isAppError } from "@support/errors";
import type { EmailContext } from "../context.ts";
import { gameIdOfAddressTag, knownGame } from "../games/game.service.ts";
import {
  addressTagsIn, automaticKind, bouncedMessageIds, bounceReason, filesNotKeptNote, firstMessageOf, fromThePlayer, MAX_MAIL_FILES, replyText, replyTokenIn,
  type DropReason, type InboundMail, type InboundOutcome,
} from "./inbound-mail.ts";
import {
  countReceived, inboundSeen, listHeldMails, markReturned, recordInbound, threadOfMessageIds, threadOfToken, type HeldMail, type InboundRecord,
} from "./inbound-mail.repository.ts";

const HOUR_MS = 3_600_000;
/** The text of an answer that is only files (a message must have text). */
const FILES_ONLY = "[Files sent by email]";

/** The record of one received mail: its outcome written, logged and returned. */
function recorderOf(ctx: EmailContext, mail: InboundMail, now: Date) {
  const base = { messageId: mail.messageId, fromAddress: mail.from ?? mail.envelopeFrom.toLowerCase(), subject: mail.subject, receivedAt: now };
  const record = async (outcome: InboundOutcome, fields: Partial<InboundRecord> = {}): Promise<InboundOutcome> => {
    const reason = outcome.status === "accepted" ? null : outcome.reason;
    await recordInbound(ctx.db, { companyId: null, ticketId: null, textBody: null, eventId: null, ...base, status: outcome.status, reason, ...fields });
    ctx.logger.info({ messageId: mail.messageId, status: outcome.status, reason, ticketId: fields.ticketId ?? null }, "mail received");
    return outcome;
  };
  const drop = (reason: DropReason, fields: Partial<InboundRecord> = {}) => record({ status: "dropped", reason }, fields);
  return { fromAddress: base.fromAddress, record, drop };
}

type Recorder = ReturnType<typeof recorderOf>;

/** Whether an address sent its hourly share of mail already (dropped ones count: a loop keeps counting). */
async function senderOverLimit(ctx: EmailContext, fromAddress: string, now: Date): Promise<boolean> {
  return (await countReceived(ctx.db, { fromAddress }, new Date(now.getTime() - HOUR_MS))) >= ctx.settings.inboundPerSenderPerHour;
}

export async function receiveMail(ctx: EmailContext, mail: InboundMail, now = new Date()): Promise<InboundOutcome> {
  const recorder = recorderOf(ctx, mail, now);
  const { record, drop } = recorder;

  const automatic = automaticKind(mail);
  if (automatic === "bounce") {
    const returned = await markReturned(ctx.db, bouncedMessageIds(mail.raw), bounceReason(mail.raw));
    if (returned > 0) ctx.logger.info({ returned }, "mails to players returned by their mail system");
    return drop("bounce");
  }
  if (automatic === "auto_reply") return drop("auto_reply");
  if (mail.messageId !== null && (await inboundSeen(ctx.db, mail.messageId))) return { status: "dropped", reason: "duplicate" };

  const token = replyTokenIn(mail.recipients, ctx.settings.replyAddress);
  const thread = (token && (await threadOfToken(ctx.db, token))) || (await threadOfMessageIds(ctx.db, mail.inReplyTo));
  if (!thread) return newTicketFromMail(ctx, mail, now, recorder);
  const ticket = await ctx.tickets.ticket(thread.companyId, thread.ticketId);
  if (!ticket) return drop("unknown_ticket", thread);

  if (!fromThePlayer(mail, ticket.email)) {
    return record({ status: "held", reason: "not_the_player", ticketId: thread.ticketId }, { ...thread, textBody: mail.text.slice(0, 100_000) });
  }
  if (await senderOverLimit(ctx, recorder.fromAddress, now)) return drop("rate_limited", thread);
  if ((await countReceived(ctx.db, { ticketId: thread.ticketId }, new Date(now.getTime() - HOUR_MS))) >= ctx.settings.inboundPerTicketPerHour) return drop("rate_limited", thread);

  const text = replyText(mail.text);
  if (text === "" && mail.attachments.length === 0) return drop("empty", thread);
  const { message, attachmentIds, filesNotKept } = await messageWithFiles(ctx, thread.companyId, ticket.gameId, mail, text);
  try {
    const added = await ctx.tickets.addReply(thread.companyId, thread.ticketId, message, attachmentIds);
    return await record({ status: "accepted", ...added, filesNotKept }, { companyId: thread.companyId, ticketId: added.ticketId, eventId: added.eventId });
  } catch (error) {
    if (isAppError(error) && error.details?.type === "PLAYER_BLOCKED") return drop("blocked", thread);
    if (isAppError(error) && error.code === "not_found") return drop("unknown_ticket", thread);
    throw error;
  }
}

/** Held mails a ticket view shows at most. */
const MAX_HELD_LISTED = 20;

/** A ticket's mails held for an agent (their sender is not the ticket's player), newest first. */
export async function heldMails(ctx: Pick<EmailContext, "db">, companyId: string, ticketId: string): Promise<HeldMail[]> {
  return listHeldMails(ctx.db, companyId, ticketId, MAX_HELD_LISTED);
}

/**
 * The message a mail becomes, with its files: they are stored first, as the company's uploads for
 * the game; one the platform refuses (its type or size) is named under the text instead. A
 * message without text carries its files under a line that says so. Unclaimed, files are swept later.
 */
async function messageWithFiles(
  ctx: EmailContext,
  companyId: string,
  gameId: string,
  mail: InboundMail,
  text: string,
): Promise<{ message: string; attachmentIds: string[]; filesNotKept: string[] }> {
  const attachmentIds: string[] = [];
  const filesNotKept: string[] = [];
  for (const [index, file] of mail.attachments.entries()) {
    const name = file.fileName || `attachment-${index + 1}`;
    if (index >= MAX_MAIL_FILES) {
      filesNotKept.push(name);
      continue;
    }
    try {
      attachmentIds.push(await ctx.files.store(companyId, gameId, { ...file, fileName: name }));
    } catch (error) {
      if (!(isAppError(error) && error.code === "invalid_argument")) throw error;
      filesNotKept.push(name);
    }
  }
  return { message: `${text}${filesNotKeptNote(filesNotKept)}`.trim() || FILES_ONLY, attachmentIds, filesNotKept };
}

/**
 * A mail that answers no ticket: to a game's support address (`support+g-<game id>@…`) it opens
 * a ticket of that game for its sender, or, when the sender has a similar open ticket there, is
 * added to it; to any other of our addresses it answers no ticket and is dropped.
 */
async function newTicketFromMail(ctx: EmailContext, mail: InboundMail, now: Date, { record, drop }: Recorder): Promise<InboundOutcome> {
  const gameId = addressTagsIn(mail.recipients, ctx.settings.replyAddress).map(gameIdOfAddressTag).find((id) => id !== undefined);
  const game = gameId === undefined ? undefined : await knownGame(ctx, gameId);
  if (!game || mail.from === null) return drop("unknown_ticket");
  if (await senderOverLimit(ctx, mail.from, now)) return drop("rate_limited");
  const text = firstMessageOf(mail.subject, replyText(mail.text));
  if (text === "" && mail.attachments.length === 0) return drop("empty");
  const { message, attachmentIds, filesNotKept } = await messageWithFiles(ctx, game.companyId, game.gameId, mail, text);
  const where = { companyId: game.companyId };
  try {
    const opened = await ctx.tickets.openTicket({
      companyId: game.companyId, gameId: game.gameId, email: mail.from, name: mail.fromName, message, language: game.languages[0] ?? "en", attachments: attachmentIds,
    });
    return await record({ status: "accepted", ticketId: opened.ticketId, eventId: opened.eventId, followUp: false, filesNotKept }, { ...where, ticketId: opened.ticketId, eventId: opened.eventId });
  } catch (error) {
    if (isAppError(error) && error.details?.type === "PLAYER_BLOCKED") return drop("blocked", where);
    const similar = isAppError(error) && error.details?.type === "DUPLICATE_OPEN_TICKET_DETECTED" ? error.details.payload?.duplicateConversationId : undefined;
    if (typeof similar !== "string") throw error;
    // The player wrote again about what an open ticket is about: the mail joins it.
    const added = await ctx.tickets.addReply(game.companyId, similar, message, attachmentIds);
    return record({ status: "accepted", ...added, filesNotKept }, { ...where, ticketId: added.ticketId, eventId: added.eventId });
  }
}
