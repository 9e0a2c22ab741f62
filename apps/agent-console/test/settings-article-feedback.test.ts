// Settings → Help articles shows the web support page's "Was this helpful?" answers in headless
// Chromium over the real stack: players of two sessions answer about an article (one of them
// twice: the second answer replaces the first) in two languages, and the admin's list shows the
// total and the counts per language; an article nobody answered about says so. A ticket a player
// opened from an article's "Still need help?" names the article in the ticket's details. axe on
// the pages, screenshots 250-259 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("Settings → Help articles: the answers to “Was this helpful?”", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ava = `ava-${suffix}@feedback.example`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Feedback Studio" },
      games: [
        {
          ref: "galaxy", name: "Galaxy", slug: `galaxy-fb-${suffix}`, languages: ["en", "de"], environments: [{ ref: "galaxy-prod", name: "production" }],
          resources: [
            { key: "billing", title: { en: "Billing", de: "Abrechnung" }, body: { en: "Pay with a card.", de: "Zahl mit Karte." } },
            { key: "login", title: { en: "Cannot log in" }, body: { en: "Reset your password." } },
          ],
        },
      ],
      users: [{ ref: "ava", name: "Ava Articles", email: ava, role: "admin" }],
    });
    await stack.admin(["users", "set-password", "--email", ava], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const answer = async (language: string, player: string, helpful: boolean[]) => {
    const token = tenant.games.galaxy!.environments["galaxy-prod"]!.token;
    const created = await stack.request("/support/sessions", { method: "POST", json: { token, language, player: { id: `${player}-${suffix}` } } });
    expect(created.status, created.text).toBe(200);
    const code = (created.body as { sessionCode: string }).sessionCode;
    for (const value of helpful) {
      const sent = await stack.request("/player-api/resources/billing/feedback", { method: "POST", headers: { authorization: `Session ${code}` }, json: { helpful: value } });
      expect(sent.status, sent.text).toBe(204);
    }
  };

  it("shows each article's answers in total and per language", async () => {
    await answer("en", "pia", [true, false]);
    await answer("en", "pat", [true]);
    await answer("de", "pen", [true]);
    const { context, page, problems } = await signedInPage(browser, base, ava, PASSWORD);
    try {
      await page.goto(`${base}/app/settings/articles`);
      await expect.poll(() => page.locator(".settings-table tbody tr").count()).toBe(2);
      const billing = page.locator(".settings-table tbody tr", { hasText: "Billing" });
      await expect.poll(() => billing.locator(".article-feedback").textContent()).toContain("2 yes, 1 no");
      expect(await billing.locator(".feedback-languages li").allTextContents()).toEqual(["German: 1 yes, 0 no", "English: 1 yes, 1 no"]);
      expect(await page.locator(".settings-table tbody tr", { hasText: "Cannot log in" }).locator(".article-feedback").textContent()).toBe("No answers yet");
      expect(await page.locator(".settings-table thead th", { hasText: "Was this helpful?" }).count()).toBe(1);
      await screenshot(page, "250-settings-articles-feedback-counts");
      await expectAccessible(page, "articles with feedback counts");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it("names the help article a ticket was opened from in the ticket's details", async () => {
    const token = tenant.games.galaxy!.environments["galaxy-prod"]!.token;
    const created = await stack.request("/support/sessions", { method: "POST", json: { token, language: "de", player: { id: `pit-${suffix}`, email: `pit-${suffix}@players.example` } } });
    expect(created.status, created.text).toBe(200);
    const code = (created.body as { sessionCode: string }).sessionCode;
    const opened = await stack.request("/player-api/tickets", { method: "POST", headers: { authorization: `Session ${code}` }, json: { message: "Die Karte wurde belastet", article: "billing" } });
    expect(opened.status, opened.text).toBe(200);
    const { ticketId } = opened.body as { ticketId: string };
    const { context, page, problems } = await signedInPage(browser, base, ava, PASSWORD);
    try {
      await page.goto(`${base}/app/tickets/${ticketId}`);
      const article = page.locator("dd.ticket-article");
      await article.waitFor();
      expect((await article.textContent())?.replace(/\s+/g, " ").trim()).toBe("Abrechnung billing");
      expect(await page.locator("dt", { hasText: "Help article" }).count()).toBe(1);
      await screenshot(page, "251-ticket-opened-from-a-help-article");
      await expectAccessible(page, "ticket opened from a help article");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);
});
