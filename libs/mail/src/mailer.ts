// Outgoing mail, one path for every service (players' email codes, agents' invitation and
// password-reset links, the email channel's replies and surveys): nodemailer over the SMTP
// server of SMTP_URL, DKIM-signed when a key is configured. Without SMTP_URL no mail can be
// sent, and what needs one answers that the email channel is not configured.
import { failedPrecondition } from "@support/errors";
import type { Logger } from "@support/logging";
import nodemailer from "nodemailer";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The HTML alternative of `text`; the mail is plain text alone without it. */
  html?: string;
  /** The sender's display name, in front of the sender address (`<name> <address>`). */
  fromName?: string;
  /** The From address (a company's own); default the configured address. Bounces still come back
   * to the configured address: it stays the envelope sender. */
  fromAddress?: string;
  replyTo?: string;
  /** The Message-ID to send, without angle brackets; nodemailer makes one when absent. */
  messageId?: string;
  /** Message-IDs (without angle brackets) this mail answers: In-Reply-To is the last. */
  references?: string[];
  /** Further headers (Auto-Submitted, List-Unsubscribe, ...). */
  headers?: Record<string, string>;
}

export interface SentMail {
  /** The Message-ID the mail went with, without angle brackets. */
  messageId: string;
  /** The relay's answer, e.g. "250 2.0.0 Ok: queued as 12345". */
  response: string;
}

/** A mail the relay did not take. `permanent`: it refused it for good (a 5xx answer), retrying cannot help. */
export class MailNotSent extends Error {
  readonly permanent: boolean;
  /** The relay's answer or the connection's failure, as an operator would read it; never a credential. */
  readonly reason: string;
  /** `cause`: the transport's own error, for the logs (it may name the relay's address). */
  constructor(reason: string, permanent: boolean, cause?: unknown) {
    super(`mail not sent: ${reason}`, { cause });
    this.name = "MailNotSent";
    this.reason = reason;
    this.permanent = permanent;
  }
}

export interface DkimSettings {
  /** The signing domain (d=), normally the sender address's domain. */
  domainName: string;
  /** The selector (s=): the key is published at `<selector>._domainkey.<domain>`. */
  keySelector: string;
  /** The private key, PEM. */
  privateKey: string;
}

export interface Mailer {
  /** Whether mail can be sent at all (SMTP_URL is set). */
  readonly configured: boolean;
  /** Sends one mail; throws MailNotSent when the SMTP server refuses it or cannot be reached. */
  send(mail: OutgoingMail): Promise<SentMail>;
  close(): void;
}

/** The answer to anything that needs mail while SMTP_URL is not set. */
export function emailNotConfigured() {
  return failedPrecondition("Email is not configured for this support service", { type: "EMAIL_NOT_CONFIGURED" });
}

const bracketed = (id: string) => `<${id}>`;
const unbracketed = (id: string) => id.replace(/^<|>$/g, "");

const FAILURES: Record<string, string> = {
  ECONNECTION: "the relay could not be reached",
  ESOCKET: "the connection to the relay failed",
  ETIMEDOUT: "the relay did not answer in time",
  EAUTH: "the relay refused the credentials",
  ETLS: "the TLS handshake with the relay failed",
  EENVELOPE: "the relay refused the sender or the recipient",
};

/** The address of a sender as MAIL_FROM gives it: `Name <address>` or a bare address. */
export function addressOf(from: string): string {
  return /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}

/** How a failed sendMail reads: nodemailer's errors carry the relay's code and answer. */
export function mailNotSentOf(error: unknown): MailNotSent {
  const failure = error as { responseCode?: number; response?: string; code?: string; message?: string };
  const code = failure.responseCode;
  // A 5xx to the envelope or the message is final; one to AUTH is our configuration, which an
  // operator fixes, so the mail waits for it like for an unreachable relay.
  const permanent = code !== undefined && code >= 500 && code < 600 && failure.code !== "EAUTH";
  // The relay's own answer says what went wrong; otherwise the failure's kind alone, never its
  // message, which names the relay's address (the reason is shown to agents).
  const reason = failure.response ?? `${failure.code ?? "ERROR"}: ${FAILURES[failure.code ?? ""] ?? "the mail could not be handed to the relay"}`;
  return new MailNotSent(reason.slice(0, 500), permanent, error);
}

export function createMailer(options: { smtpUrl: string; from: string; logger: Logger; timeoutMs?: number; dkim?: DkimSettings }): Mailer {
  if (options.smtpUrl.trim() === "") {
    return {
      configured: false,
      async send() {
        throw emailNotConfigured();
      },
      close() {},
    };
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  // The URL carries host, port, credentials and TLS (smtps:// for implicit TLS; smtp:// upgrades
  // with STARTTLS when the server offers it). Pooled: mails are sent one at a time, often.
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    pool: true,
    maxConnections: 2,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(options.dkim ? { dkim: options.dkim } : {}),
  });
  // A mail may put its own name, and address, in place of MAIL_FROM's.
  const fromAddress = addressOf(options.from);
  return {
    configured: true,
    async send(mail) {
      const references = mail.references?.map(bracketed);
      let info: { messageId: string; response: string };
      try {
        const address = mail.fromAddress ?? fromAddress;
        info = await transport.sendMail({
          from: mail.fromName ? { name: mail.fromName, address } : mail.fromAddress ? address : options.from,
          // The return path is the configured address whatever the From says: delivery reports
          // must reach the platform, which marks the mail they return.
          ...(mail.fromAddress === undefined ? {} : { envelope: { from: fromAddress, to: mail.to } }),
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          ...(mail.html === undefined ? {} : { html: mail.html }),
          ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
          ...(mail.messageId === undefined ? {} : { messageId: bracketed(mail.messageId) }),
          ...(references && references.length > 0 ? { references, inReplyTo: references.at(-1) } : {}),
          ...(mail.headers === undefined ? {} : { headers: mail.headers }),
        });
      } catch (error) {
        throw mailNotSentOf(error);
      }
      // Never the address or the text: they are personal data and may carry a credential.
      options.logger.info({ messageId: info.messageId }, "mail sent");
      return { messageId: unbracketed(info.messageId), response: info.response };
    },
    close() {
      transport.close();
    },
  };
}
