import { createLogger } from "@support/logging";
import { startSmtpReceiver } from "@support/testkit";
import { describe, expect, it } from "vitest";
import { createMailer, MailNotSent } from "./mailer.ts";

const logger = createLogger({ service: "mail-test", level: "silent" });

describe("the mailer", () => {
  it("sends through SMTP_URL's server, from the configured address", async () => {
    const receiver = await startSmtpReceiver();
    const mailer = createMailer({ smtpUrl: receiver.url, from: "Support <support@studio.example>", logger });
    try {
      await mailer.send({ to: "ada@studio.example", subject: "Welcome", text: "Set your password: https://support.example/app/welcome#t" });
      const mail = await receiver.waitForMail("ada@studio.example");
      expect(mail).toMatchObject({ subject: "Welcome", from: "support@studio.example", text: expect.stringContaining("Set your password") });
    } finally {
      mailer.close();
      await receiver.stop();
    }
  });

  it("sends the HTML part, the sender's name, the reply address and the threading headers, and returns the Message-ID", async () => {
    const receiver = await startSmtpReceiver();
    const mailer = createMailer({ smtpUrl: receiver.url, from: "Support <support@studio.example>", logger });
    try {
      const sent = await mailer.send({
        to: "pat@players.example",
        subject: "Re: ship",
        text: "Found it.",
        html: "<p>Found it.</p>",
        fromName: "Galaxy Raiders Support",
        replyTo: "support+abc@studio.example",
        messageId: "m2@studio.example",
        references: ["m1@studio.example", "m0@studio.example"],
        headers: { "X-Auto-Response-Suppress": "All" },
      });
      expect(sent.messageId).toBe("m2@studio.example");
      expect(sent.response).toMatch(/^250/);
      const mail = await receiver.waitForMail("pat@players.example");
      expect(mail.html).toContain("<p>Found it.</p>");
      expect(mail.raw).toMatch(/^From: Galaxy Raiders Support <support@studio\.example>\r?$/m);
      expect(mail.raw).toMatch(/^Reply-To: support\+abc@studio\.example\r?$/m);
      expect(mail.raw).toMatch(/^Message-ID: <m2@studio\.example>\r?$/m);
      expect(mail.raw).toMatch(/^In-Reply-To: <m0@studio\.example>\r?$/m);
      expect(mail.raw).toMatch(/^References: <m1@studio\.example> <m0@studio\.example>\r?$/m);
      expect(mail.raw).toMatch(/^X-Auto-Response-Suppress: All\r?$/m);
    } finally {
      mailer.close();
      await receiver.stop();
    }
  });

  it("sends from a mail's own address, keeping the configured one as the envelope sender (where bounces return)", async () => {
    const receiver = await startSmtpReceiver();
    const mailer = createMailer({ smtpUrl: receiver.url, from: "Support <support@studio.example>", logger });
    try {
      await mailer.send({ to: "pat@players.example", subject: "Re: ship", text: "Found it.", fromName: "Star Studio Support", fromAddress: "help@star.example" });
      const named = await receiver.waitForMail("pat@players.example");
      expect(named.raw).toMatch(/^From: Star Studio Support <help@star\.example>\r?$/m);
      expect(named.from).toBe("support@studio.example");

      await mailer.send({ to: "kim@players.example", subject: "Re: ship", text: "Found it.", fromAddress: "help@star.example" });
      const bare = await receiver.waitForMail("kim@players.example");
      expect(bare.raw).toMatch(/^From: help@star\.example\r?$/m);
      expect(bare.from).toBe("support@studio.example");
    } finally {
      mailer.close();
      await receiver.stop();
    }
  });

  it("reports a refusal for good (5xx) as permanent and one for now (4xx) or an unreachable relay as not", async () => {
    const receiver = await startSmtpReceiver();
    receiver.refusedRecipients.set("gone@players.example", 550);
    receiver.refusedRecipients.set("full@players.example", 450);
    const mailer = createMailer({ smtpUrl: receiver.url, from: "support@studio.example", logger });
    const unreachable = createMailer({ smtpUrl: "smtp://127.0.0.1:1", from: "support@studio.example", logger, timeoutMs: 2_000 });
    try {
      const refusal = (to: string, through = mailer) => through.send({ to, subject: "s", text: "t" }).then(() => undefined, (error: unknown) => error);
      const gone = await refusal("gone@players.example");
      expect(gone).toBeInstanceOf(MailNotSent);
      expect(gone).toMatchObject({ permanent: true, reason: expect.stringContaining("550") });
      expect(await refusal("full@players.example")).toMatchObject({ permanent: false, reason: expect.stringContaining("450") });
      const down = await refusal("anyone@players.example", unreachable);
      expect(down).toMatchObject({ permanent: false, reason: expect.stringMatching(/^E[A-Z]+: the /) });
      // Shown to agents: never the relay's address.
      expect((down as MailNotSent).reason).not.toContain("127.0.0.1");
    } finally {
      mailer.close();
      unreachable.close();
      await receiver.stop();
    }
  });

  it("without SMTP_URL, says so and refuses to send (failed_precondition EMAIL_NOT_CONFIGURED)", async () => {
    const mailer = createMailer({ smtpUrl: "", from: "x@y.example", logger });
    expect(mailer.configured).toBe(false);
    await expect(mailer.send({ to: "a@b.example", subject: "s", text: "t" })).rejects.toMatchObject({ code: "failed_precondition", details: { type: "EMAIL_NOT_CONFIGURED" } });
  });
});
