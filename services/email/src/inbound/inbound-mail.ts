// A mail a player sent to the support addresses, and the rules that decide what becomes of it:
// which recipients are ours, which mail is automatic (auto-replies, bounces), which ticket it
// answers, whether its sender may write there, and the text that is the player's own answer.
// Nothing here knows SMTP, SQL or RPC.
import EmailReplyParser from "email-reply-parser";

export interface InboundMail {
  /** Its Message-ID, without angle brackets; null when it has none. */
  messageId: string | null;
  /** MAIL FROM of the SMTP envelope: empty for bounces (RFC 5321 null reverse-path). */
  envelopeFrom: string;
  /** The From header's address, lower-case; null when unreadable. */
  from: string | null;
  /** The From header's display name, when it has one. */
  fromName: string | null;
  /** RCPT TO addresses, lower-case. */
  recipients: string[];
  subject: string;
  text: string;
  /** Headers by lower-case name, each value as one line. */
  headers: Map<string, string>;
  /** Message-IDs of In-Reply-To and References, without angle brackets. */
  inReplyTo: string[];
  /** The whole message as received, for reading delivery status notifications. */
  raw: string;
  /** The mail's files (inline images included), as sent. */
  attachments: MailFile[];
}

export interface MailFile {
  fileName: string;
  contentType: string;
  content: Uint8Array;
}

export type DropReason = "auto_reply" | "bounce" | "duplicate" | "unknown_ticket" | "rate_limited" | "blocked" | "empty";

/** The subject and text of a new mail as a ticket's first message: the subject is its first line (the ticket's subject line). */
export function firstMessageOf(subject: string, text: string): string {
  const title = subject.replace(/\s+/g, " ").trim();
  return [title, text.trim()].filter((part) => part !== "").join("\n\n");
}
export type HoldReason = "not_the_player";

export type InboundOutcome =
  | { status: "accepted"; ticketId: string; eventId: string; followUp: boolean; filesNotKept: string[] }
  | { status: "held"; reason: HoldReason; ticketId: string }
  | { status: "dropped"; reason: DropReason };

/** The addresses mail is accepted for: the reply address (bare or plus-addressed) and the sender address (bounces come back to it). */
export interface OwnAddresses {
  replyAddress: string;
  fromAddress: string;
}

const lower = (address: string) => address.trim().toLowerCase();

function parts(address: string): { local: string; domain: string } | undefined {
  const at = address.lastIndexOf("@");
  if (at <= 0) return undefined;
  return { local: address.slice(0, at), domain: address.slice(at + 1) };
}

/** Whether the platform takes mail for this recipient; anything else is refused (never an open relay). */
export function acceptsRecipient(address: string, own: OwnAddresses): boolean {
  const given = parts(lower(address));
  if (!given) return false;
  for (const mine of [own.replyAddress, own.fromAddress].filter((value) => value !== "").map((value) => parts(lower(value)))) {
    if (!mine || mine.domain !== given.domain) continue;
    if (given.local === mine.local || given.local.startsWith(`${mine.local}+`)) return true;
  }
  return false;
}

/** The plus parts of the recipients that are the reply address plus-addressed (`support+<tag>@…`). */
export function addressTagsIn(recipients: readonly string[], replyAddress: string): string[] {
  const mine = parts(lower(replyAddress));
  if (!mine) return [];
  return recipients.flatMap((recipient) => {
    const given = parts(lower(recipient));
    return given?.domain === mine.domain && given.local.startsWith(`${mine.local}+`) ? [given.local.slice(mine.local.length + 1)] : [];
  });
}

/** The ticket token of a plus-addressed recipient (`support+<token>@…`). */
export function replyTokenIn(recipients: readonly string[], replyAddress: string): string | undefined {
  const mine = parts(lower(replyAddress));
  if (!mine) return undefined;
  for (const recipient of recipients) {
    const given = parts(lower(recipient));
    if (given?.domain === mine.domain && given.local.startsWith(`${mine.local}+`)) {
      const token = given.local.slice(mine.local.length + 1);
      if (/^[0-9a-f]{32}$/.test(token)) return token;
    }
  }
  return undefined;
}

const AUTOMATIC_PRECEDENCE = new Set(["bulk", "junk", "list", "auto_reply"]);

/**
 * What automatic mail this is: a bounce (a delivery status notification, or mail from the null
 * sender), an auto-reply (RFC 3834 Auto-Submitted, Precedence bulk/junk/list, the common
 * auto-responder headers, a mailing list), or undefined for a person's mail.
 */
export function automaticKind(mail: Pick<InboundMail, "envelopeFrom" | "headers">): "bounce" | "auto_reply" | undefined {
  const header = (name: string) => mail.headers.get(name)?.trim().toLowerCase();
  const contentType = header("content-type") ?? "";
  if (contentType.startsWith("multipart/report") && /report-type\s*=\s*"?delivery-status/.test(contentType)) return "bounce";
  if (mail.envelopeFrom.trim() === "") return "bounce";
  const autoSubmitted = header("auto-submitted");
  if (autoSubmitted !== undefined && autoSubmitted !== "no") return "auto_reply";
  if (AUTOMATIC_PRECEDENCE.has(header("precedence") ?? "")) return "auto_reply";
  // (Not X-Auto-Response-Suppress: Outlook puts it on people's mail too.)
  if (mail.headers.has("x-autoreply") || mail.headers.has("x-autorespond")) return "auto_reply";
  if (mail.headers.has("list-id") || mail.headers.has("list-unsubscribe")) return "auto_reply";
  return undefined;
}

/** The Message-IDs a delivery status notification reports on (its copy of the original's headers). */
export function bouncedMessageIds(raw: string): string[] {
  const body = raw.slice(Math.max(0, raw.search(/\r?\n\r?\n/)));
  return [...new Set([...body.matchAll(/^Message-ID:\s*<([^>\s]+)>/gim)].map((match) => match[1]!))];
}

/** What a delivery status notification says went wrong: its Diagnostic-Code, else its Status. */
export function bounceReason(raw: string): string {
  const diagnostic = /^Diagnostic-Code:\s*(?:smtp;\s*)?(.+)$/im.exec(raw)?.[1]?.trim();
  const status = /^Status:\s*(\d\.\d+\.\d+)/im.exec(raw)?.[1];
  return (diagnostic ?? (status ? `status ${status}` : "returned by the recipient's mail system")).slice(0, 500);
}

/** Whether the mail's sender is the ticket's player (addresses compare without case). */
export function fromThePlayer(mail: Pick<InboundMail, "from">, playerEmail: string | undefined): boolean {
  return mail.from !== null && playerEmail !== undefined && lower(mail.from) === lower(playerEmail);
}

const parser = new EmailReplyParser();

/** Files of one message, as for any message (the storage's own limits apply to each file). */
export const MAX_MAIL_FILES = 100;

/** The line added under a message whose files were not all kept (a type or size the platform does not take). */
export function filesNotKeptNote(names: readonly string[]): string {
  return names.length === 0 ? "" : `\n\n[Not kept: ${names.join(", ")}, of a type or size the platform does not accept.]`;
}

/** The player's own answer: the quoted conversation and the signature removed. */
export function replyText(text: string): string {
  return parser.parseReply(text.replace(/\r\n/g, "\n")).trim();
}
