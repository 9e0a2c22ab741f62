// The SMTP listener that takes players' answers: the MX of the reply address's domain (or the
// relay that forwards it) delivers here. It takes mail only for the platform's own addresses
// (never an open relay), refuses a mail larger than EMAIL_INBOUND_MAX_BYTES during the
// transfer, and answers 250 once the mail is recorded (accepted, held or dropped: a sender learns
// nothing of the ticket), or 451 when that failed (the sending server tries again later).
import type { AddressInfo } from "node:net";
import type { Logger } from "@support/logging";
import type { Startable } from "@support/runtime";
import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer } from "smtp-server";
import { acceptsRecipient, type InboundMail, type InboundOutcome, type OwnAddresses } from "./inbound/inbound-mail.ts";

export interface SmtpListenerSettings {
  host: string;
  port: number;
  maxBytes: number;
  own: OwnAddresses;
  logger: Logger;
  receive(mail: InboundMail): Promise<InboundOutcome>;
}

export interface SmtpListener extends Startable {
  /** The port it listens on once started (the given one, or the free one chosen for 0). */
  port(): number;
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

const ids = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value : value ? value.split(/\s+/) : []).map((id) => id.trim().replace(/^<|>$/g, "")).filter((id) => id !== "");

function firstSender(from: AddressObject | AddressObject[] | undefined): { address: string | null; name: string | null } {
  const list = Array.isArray(from) ? from : from ? [from] : [];
  const entry = list.flatMap((item) => item.value).find((value) => value.address);
  return { address: entry?.address ? entry.address.toLowerCase() : null, name: entry?.name?.trim() || null };
}

export function createSmtpListener(settings: SmtpListenerSettings): SmtpListener {
  const server = new SMTPServer({
    banner: "player support",
    // Mail arrives from other mail servers: no authentication; TLS is the MX's in front of it.
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: settings.maxBytes,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (acceptsRecipient(address.address, settings.own)) return callback();
      return callback(smtpError(550, "5.1.1 No such recipient here"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (stream.sizeExceeded) return callback(smtpError(552, "5.3.4 Message too big"));
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw)
          .then(async (parsed) => {
            const headers = new Map<string, string>();
            for (const line of parsed.headerLines) headers.set(line.key.toLowerCase(), line.line.slice(line.line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim());
            const outcome = await settings.receive({
              messageId: parsed.messageId ? parsed.messageId.replace(/^<|>$/g, "") : null,
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              from: firstSender(parsed.from).address,
              fromName: firstSender(parsed.from).name,
              recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              headers,
              inReplyTo: [...ids(parsed.inReplyTo), ...ids(parsed.references)],
              raw,
              attachments: parsed.attachments.map((file) => ({ fileName: file.filename ?? "", contentType: file.contentType, content: file.content })),
            });
            settings.logger.debug({ status: outcome.status }, "inbound mail handled");
            callback();
          })
          .catch((error: unknown) => {
            settings.logger.error({ err: error }, "inbound mail not recorded: the sending server is asked to try again");
            callback(smtpError(451, "4.3.0 Try again later"));
          });
      });
    },
  });
  let port = settings.port;
  return {
    port: () => port,
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.server.once("error", reject);
        server.listen(settings.port, settings.host, () => {
          server.server.off("error", reject);
          resolve();
        });
      });
      port = (server.server.address() as AddressInfo).port;
      settings.logger.info({ port }, "SMTP listener for players' answers started");
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
