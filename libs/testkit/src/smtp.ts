// A real SMTP receiver (smtp-server + mailparser) on 127.0.0.1: tests read the mails the
// services send through it, and the local stack (scripts/up.ts) keeps them for the developer.
// It accepts any sender and recipient without authentication and never relays.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | undefined;
  /** The whole message as received (RFC 5322). */
  raw: string;
  receivedAt: Date;
}

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>`: what SMTP_URL should be. */
  url: string;
  port: number;
  /** Every mail received so far, oldest first. */
  mails: ReceivedMail[];
  /**
   * Recipients the receiver refuses, with the SMTP code it answers (550: for good, 450: try
   * again later), as a relay that knows the mailbox is gone or full would.
   */
  refusedRecipients: Map<string, 450 | 550>;
  /** The first mail (received already or arriving within timeoutMs) to this address. */
  /** `where`: only a mail it accepts (e.g. one subject among the mails the address receives). */
  waitForMail(to: string, options?: { timeoutMs?: number; after?: number; where?: (mail: ReceivedMail) => boolean }): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

/** `keep: false`: mails are taken and dropped unread (a load run's relay), so `mails` stays empty. */
export async function startSmtpReceiver(options: { port?: number; host?: string; keep?: boolean; onMail?: (mail: ReceivedMail) => void } = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const refusedRecipients = new Map<string, 450 | 550>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    size: 10 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      const code = refusedRecipients.get(address.address.toLowerCase());
      if (code === undefined) return callback();
      const error = Object.assign(new Error(code === 550 ? "5.1.1 Mailbox unavailable" : "4.2.2 Mailbox full, try again later"), { responseCode: code });
      callback(error);
    },
    onData(stream, session, callback) {
      if (options.keep === false) {
        stream.resume();
        stream.on("end", () => callback());
        return;
      }
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw)
          .then((parsed) => {
            const mail: ReceivedMail = {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : undefined,
              raw,
              receivedAt: new Date(),
            };
            mails.push(mail);
            options.onMail?.(mail);
            for (const wake of [...waiters]) wake();
            callback();
          })
          .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
      });
    },
  });
  server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await once(server.server, "listening");
  const port = (server.server.address() as AddressInfo).port;

  const find = (to: string, after: number, where: (mail: ReceivedMail) => boolean) =>
    mails.find((mail, index) => index >= after && mail.to.includes(to.toLowerCase()) && where(mail));
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails,
    refusedRecipients,
    async waitForMail(to, waitOptions = {}) {
      const after = waitOptions.after ?? 0;
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 5000);
      for (;;) {
        const found = find(to, after, waitOptions.where ?? (() => true));
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${waitOptions.timeoutMs ?? 5000} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
