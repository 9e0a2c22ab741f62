// A mail to a player and the rules of its delivery: which ticket events send one, where a
// delivery stands after an attempt, and the addresses and ids that thread a conversation.
// Nothing here knows SMTP, SQL or RPC.
import { randomBytes, randomUUID } from "node:crypto";

export type MailKind = "agent_reply" | "csat_request";
export type MailStatus = "queued" | "sent" | "deferred" | "bounced" | "failed";

export interface Mail {
  id: string;
  companyId: string;
  ticketId: string;
  /** The ticket event carried (an AGENT_MESSAGE's id); null for a survey. */
  eventId: string | null;
  kind: MailKind;
  toAddress: string;
  fromName: string;
  /** The company's own sender address (its tenant file's company.email); null: MAIL_FROM's. */
  fromAddress: string | null;
  replyTo: string | null;
  subject: string;
  textBody: string;
  htmlBody: string;
  messageId: string;
  references: string[];
  headers: Record<string, string>;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastError: string | null;
  sentAt: Date | null;
  createdAt: Date;
}

/** The ticket as the email channel needs it. */
export interface EmailTicket {
  channels: string[];
  email: string | undefined;
}

/** Only tickets of the email channel with a player address get mail. */
export function sendsMail(ticket: EmailTicket): ticket is EmailTicket & { email: string } {
  return ticket.channels.includes("email") && typeof ticket.email === "string" && ticket.email !== "";
}

/** What one attempt came to. */
export type AttemptOutcome = { sent: true; messageId: string } | { sent: false; permanent: boolean; reason: string };

/** The delivery after an attempt: sent; bounced (refused for good); deferred to the next slot of the schedule; or failed once the schedule ran out. */
export function afterAttempt(
  mail: Pick<Mail, "attempts">,
  outcome: AttemptOutcome,
  retrySchedule: number[],
  now: Date,
): { status: MailStatus; attempts: number; nextAttemptAt: Date | null; lastError: string | null; sentAt: Date | null } {
  const attempts = mail.attempts + 1;
  if (outcome.sent) return { status: "sent", attempts, nextAttemptAt: null, lastError: null, sentAt: now };
  if (outcome.permanent) return { status: "bounced", attempts, nextAttemptAt: null, lastError: outcome.reason, sentAt: null };
  const delaySeconds = retrySchedule[attempts - 1];
  if (delaySeconds === undefined) return { status: "failed", attempts, nextAttemptAt: null, lastError: outcome.reason, sentAt: null };
  return { status: "deferred", attempts, nextAttemptAt: new Date(now.getTime() + delaySeconds * 1000), lastError: outcome.reason, sentAt: null };
}

/** A ticket's reply token: 128 random bits, URL- and address-safe. It alone never admits a mail: the sender must be the ticket's player. */
export function newReplyToken(): string {
  // Hex: mail systems may change the case of an address's local part.
  return randomBytes(16).toString("hex");
}

/** `support@example.com` + token -> `support+<token>@example.com`. */
export function replyAddressOf(replyAddress: string, token: string): string | null {
  if (replyAddress === "") return null;
  const at = replyAddress.lastIndexOf("@");
  return `${replyAddress.slice(0, at)}+${token}${replyAddress.slice(at)}`;
}

/** A new Message-ID (without angle brackets) in the sender's domain. */
export function newMessageId(fromAddress: string): string {
  const domain = /@([^@>\s]+)>?\s*$/.exec(fromAddress)?.[1] ?? "localhost";
  return `${randomUUID()}@${domain}`;
}
