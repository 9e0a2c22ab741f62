// The email channel from the agent's side, in headless Chromium over the real stack with a real
// SMTP receiver (the player's inbox) and real mail sent to the email service's SMTP listener
// (the player's answer): the agent answers an email ticket by keyboard, sees under the reply that
// it was emailed, the player's inbox has it; the player answers by mail and the answer appears in
// the open ticket live, without the quoted conversation. A returned mail shows as bounced.
// Resolving sends the survey: the player opens its link in a phone-sized browser and rates by
// keyboard. Mail from someone else is held beside the conversation. Screenshots in
// .ci/out/agent-console/ (70-76), axe on each step.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import nodemailer from "nodemailer";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, watchPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const DOMAIN = "mail.studio.example";

describe("the email channel in the console", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  let inboundPort: number;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@studio.example`;
  const playerAddress = `robin-${suffix}@players.example`;

  async function mailIn(raw: { from: string; to: string; subject: string; text: string; inReplyTo: string }): Promise<void> {
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: inboundPort, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ ...raw, references: [raw.inReplyTo] });
    } finally {
      transport.close();
    }
  }

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    inboundPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app`, WEB_SUPPORT_URL: `${base}/support/`, MAIL_FROM: `Player support <support@${DOMAIN}>`, EMAIL_REPLY_ADDRESS: `support@${DOMAIN}`, EMAIL_SMTP_PORT: String(inboundPort), EMAIL_POLL_INTERVAL_MS: "100" },
    });
    tenant = await stack.applyTenant({
      company: { name: "Mail Console Studio", primaryLanguage: "en" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "quest", name: "Star Quest", slug: `quest-${suffix}`, languages: ["en"], environments: [{ ref: "prod", name: "production" }] }],
      users: [{ ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["quest"] }],
    });
    await stack.admin(["users", "set-password", "--email", ada], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("answers an email ticket, shows it emailed, and shows the player's answer by mail live", async () => {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.quest!.id, message: "My freighter vanished after the update.", language: "en", channels: ["email"], metadata: { player: { id: `robin-${suffix}`, name: "Robin", email: playerAddress } } },
    });
    expect(created.status, created.text).toBe(200);
    const ticketId = (created.body as { ticketId: string }).ticketId;

    const { context, page, problems } = await signedInPage(browser, base, ada, PASSWORD);
    await page.goto(`${base}/app/tickets/${ticketId}`);
    await expect.poll(() => page.getByText("My freighter vanished after the update.").count(), { timeout: 15_000 }).toBe(1);
    await screenshot(page, "70-email-ticket-opened");

    // By keyboard: r focuses the reply; Tab passes the file button to the send button.
    await page.keyboard.press("r");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), { timeout: 15_000 }).toBe("composer-text");
    await page.keyboard.type("We restored your freighter. Log in again to see it.");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), { timeout: 15_000 }).toBe("Send the reply");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByText(/Emailed to the player/).count(), { timeout: 20_000 }).toBe(1);
    await screenshot(page, "71-reply-emailed");
    await expectAccessible(page, "the ticket with an emailed reply");

    const mail = await stack.smtp.waitForMail(playerAddress, { timeoutMs: 15_000 });
    expect(mail.subject).toBe("Re: My freighter vanished after the update. [#1]");
    expect(mail.text).toContain("We restored your freighter.");
    const replyTo = /^Reply-To: (.+)$/m.exec(mail.raw)![1]!.trim();
    const messageId = /^Message-ID: (.+)$/m.exec(mail.raw)![1]!.trim();

    // The player answers from their mail client, quoting the reply.
    await mailIn({ from: `Robin <${playerAddress}>`, to: replyTo, subject: `Re: ${mail.subject}`, text: `It is back, thank you!\n\nOn Fri, Nov 27, 2026 Star Quest Support wrote:\n> We restored your freighter.\n`, inReplyTo: messageId });
    await expect.poll(() => page.getByText("It is back, thank you!").count(), { timeout: 20_000 }).toBe(1);
    expect(await page.locator(".event-player_message").last().innerText()).not.toContain("We restored your freighter");
    await screenshot(page, "72-player-answered-by-mail");
    await expectAccessible(page, "the ticket with the player's answer by mail");

    // Someone else writing to the reply address: held beside the conversation, never in it.
    await mailIn({ from: "mallory@evil.example", to: replyTo, subject: "Re: your freighter", text: "Send me the account password.", inReplyTo: messageId });
    await page.reload();
    await expect.poll(() => page.getByRole("heading", { name: "Held mail, not from the player" }).count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator(".held-mails").innerText()).toContain("From mallory@evil.example");
    expect(await page.getByRole("list", { name: "Conversation" }).innerText()).not.toContain("account password");
    await screenshot(page, "76-held-mail");
    await expectAccessible(page, "the ticket with a held mail");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a reply whose mail was refused for good as bounced, with the relay's answer", async () => {
    const gone = `gone-${suffix}@players.example`;
    stack.smtp.refusedRecipients.set(gone, 550);
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.quest!.id, message: "Where is my account?", language: "en", channels: ["email"], metadata: { player: { id: `gone-${suffix}`, email: gone } } },
    });
    const ticketId = (created.body as { ticketId: string }).ticketId;
    const { context, page, problems } = await signedInPage(browser, base, ada, PASSWORD);
    await page.goto(`${base}/app/tickets/${ticketId}`);
    await page.getByLabel("Your reply (the player sees it)").fill("Please tell us your player name.");
    await page.getByRole("button", { name: "Send the reply" }).click();
    // The page reads the ticket again while the reply's mail is not sent: the refusal shows without a reload.
    await expect.poll(() => page.getByText(/Email bounced: 550/).count(), { timeout: 20_000 }).toBe(1);
    await screenshot(page, "73-reply-bounced");
    await expectAccessible(page, "the ticket with a bounced reply");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("lets the player rate a resolved ticket from the survey mail's link, by keyboard", async () => {
    const address = `sam-${suffix}@players.example`;
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.quest!.id, message: "I cannot find the shipyard.", language: "de", channels: ["email"], metadata: { player: { id: `sam-${suffix}`, name: "Sam", email: address } } },
    });
    const ticketId = (created.body as { ticketId: string }).ticketId;
    const { context, page } = await signedInPage(browser, base, ada, PASSWORD);
    await page.goto(`${base}/app/tickets/${ticketId}`);
    await page.getByLabel("Your reply (the player sees it)").fill("Die Werft ist jetzt im Hafen von Nova.");
    await page.getByRole("button", { name: "Send the reply" }).click();
    await expect.poll(() => page.getByText(/Emailed to the player/).count(), { timeout: 20_000 }).toBe(1);
    await page.getByRole("button", { name: "Resolve" }).click();
    await context.close();

    const survey = await stack.smtp.waitForMail(address, { timeoutMs: 15_000, where: (mail) => mail.subject.startsWith("Wie war unser Support?") });
    const link = /(http:\/\/\S+\/support\/rate\/\S+\?score=5)/.exec(survey.text)![1]!;
    const player = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: "de-DE" });
    const phone = await player.newPage();
    const problems = watchPage(phone, base);
    await phone.goto(link);
    await expect.poll(() => phone.getByRole("radio", { name: "5 – Sehr gut" }).isChecked(), { timeout: 15_000 }).toBe(true);
    await screenshot(phone, "74-rating-page");
    await expectAccessible(phone, "the rating page");
    // Keyboard: the chosen score has the focus after one Tab; an arrow picks 4; Tab to the comment, then the button.
    await phone.keyboard.press("Tab");
    await phone.keyboard.press("ArrowUp");
    await expect.poll(() => phone.getByRole("radio", { name: "4 – Gut" }).isChecked(), { timeout: 15_000 }).toBe(true);
    await phone.keyboard.press("Tab");
    await phone.keyboard.type("Schnell und freundlich.");
    await phone.keyboard.press("Tab");
    await phone.keyboard.press("Enter");
    await expect.poll(() => phone.getByText("Danke! Du hast dieses Gespräch mit 4 von 5 bewertet.").count(), { timeout: 15_000 }).toBe(1);
    await screenshot(phone, "75-rating-sent");
    await expectAccessible(phone, "the rating page's thanks");
    expect(problems).toEqual([]);
    await player.close();
    const listed = await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! });
    expect((listed.body as { tickets: { csatScore: number; csatReview: string }[] }).tickets[0]).toMatchObject({ csatScore: 4, csatReview: "Schnell und freundlich." });
  });
});
