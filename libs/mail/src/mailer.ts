// Outgoing mail (players' email codes, agents' invitation and password-reset links), sent
// through the SMTP server of SMTP_URL with nodemailer. Without SMTP_URL no mail can be sent,
// and what needs one answers that the email channel is not configured.
import { failedPrecondition } from "@support/errors";
import type { Logger } from "@support/logging";
import nodemailer from "nodemailer";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Whether mail can be sent at all (SMTP_URL is set). */
  readonly configured: boolean;
  /** Sends one mail; throws when the SMTP server refuses it or cannot be reached. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** The answer to anything that needs mail while SMTP_URL is not set. */
export function emailNotConfigured() {
  return failedPrecondition("Email is not configured for this support service", { type: "EMAIL_NOT_CONFIGURED" });
}

export function createMailer(options: { smtpUrl: string; from: string; logger: Logger; timeoutMs?: number }): Mailer {
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
  });
  return {
    configured: true,
    async send(mail) {
      const info = await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
      // Never the address or the text: they are personal data and a credential.
      options.logger.info({ messageId: info.messageId }, "mail sent");
    },
    close() {
      transport.close();
    },
  };
}
