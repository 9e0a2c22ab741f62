import { createLogger } from "@support/logging";
import { startSmtpReceiver } from "@support/testkit";
import { describe, expect, it } from "vitest";
import { createMailer } from "./mailer.ts";

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

  it("without SMTP_URL, says so and refuses to send (failed_precondition EMAIL_NOT_CONFIGURED)", async () => {
    const mailer = createMailer({ smtpUrl: "", from: "x@y.example", logger });
    expect(mailer.configured).toBe(false);
    await expect(mailer.send({ to: "a@b.example", subject: "s", text: "t" })).rejects.toMatchObject({ code: "failed_precondition", details: { type: "EMAIL_NOT_CONFIGURED" } });
  });
});
