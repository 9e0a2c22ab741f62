// Settings → Help articles and Announcements in headless Chromium over the real stack: an admin
// writes an article in two languages (a tab per language, the preview rendered by the web
// support page's own renderer), moves it first, and the game's web support page (opened with the
// environment's token) shows it in each language under its section; the admin sets an
// announcement (the primary language is required, as the API enforces) and the page shows it;
// the audit log names the changes. An article written and ordered by keyboard alone. axe on
// every page, screenshots 200-219 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo, watchPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("Settings → Help articles and Announcements in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let supportBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ava = `ava-${suffix}@articles.example`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    supportBundle = await buildBundle(fileURLToPath(new URL("../../web-support", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app`, WEB_SUPPORT_URL: `${base}/support/`, WEB_SUPPORT_DIR: supportBundle.dir },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Articles Studio" },
      apiKeys: [{ name: "main" }],
      games: [
        {
          ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "galaxy-prod", name: "production" }],
          resources: [{ key: "billing", title: { en: "Billing", de: "Abrechnung" }, body: { en: "Pay with a card.", de: "Zahl mit Karte." } }],
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

  const rows = (page: Page) => page.locator(".settings-table tbody tr");
  const preview = (page: Page) => page.locator(".player-preview .player-preview-page");
  const openSupport = async (context: BrowserContext, language: string) => {
    const token = tenant.games.galaxy!.environments["galaxy-prod"]!.token;
    const support = await context.newPage();
    const problems = watchPage(support, base);
    await support.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token, language, "player.id": `pia-${suffix}` })}`);
    return { support, problems };
  };

  it("writes an article in two languages with the preview; the web support page shows it in each language; an announcement; the audit log", async () => {
    const { context, page, problems } = await signedInPage(browser, base, ava, PASSWORD);
    await page.goto(`${base}/app/settings/articles`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Help articles");
    await expect.poll(() => rows(page).count()).toBe(1);
    await screenshot(page, "200-settings-articles-list");
    await expectAccessible(page, "the help articles page");

    await page.getByRole("button", { name: "New article" }).click();
    await page.getByRole("heading", { name: "New article for Galaxy", level: 2 }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("article-title");
    expect(await page.getByRole("tab").allTextContents()).toEqual(["English", "German"]);
    await page.getByLabel("Title (English)").fill("Refunds");
    await page.getByLabel("Section (English)").fill("Payments");
    await page.getByLabel("Text in Markdown (English)").fill("# Refunds\n\nAsk **us** within 14 days:\n\n- open the shop\n- choose *Refund*\n\n<script>alert(1)</script>\n\nSee [help](https://example.com).");
    await expect.poll(() => preview(page).locator(".article-preview-heading").textContent()).toBe("Refunds");
    await expect.poll(() => preview(page).locator(".markdown strong").textContent()).toBe("us");
    expect(await preview(page).locator(".markdown li").count()).toBe(2);
    // Raw HTML is text, never markup, as on the page.
    expect(await preview(page).locator(".markdown script").count()).toBe(0);
    expect(await preview(page).locator(".markdown").textContent()).toContain("<script>alert(1)</script>");
    expect(await preview(page).locator(".markdown a").getAttribute("rel")).toBe("noopener noreferrer");
    await screenshot(page, "201-settings-article-editor-english-with-preview");
    await expectAccessible(page, "the article editor with its preview");

    await page.getByRole("tab", { name: "German" }).click();
    await page.getByLabel("Title (German)").fill("Erstattungen");
    await page.getByLabel("Section (German)").fill("Zahlungen");
    await page.getByLabel("Text in Markdown (German)").fill("Frag **uns** innerhalb von 14 Tagen.");
    await expect.poll(() => preview(page).locator(".article-preview-heading").textContent()).toBe("Erstattungen");
    expect(await preview(page).getAttribute("lang")).toBe("de");
    await screenshot(page, "202-settings-article-editor-german-with-preview");
    await page.getByRole("button", { name: "Add the article" }).click();
    await page.getByText("Refunds is added.").waitFor();
    await expect.poll(() => rows(page).count()).toBe(2);
    // Move it first.
    await page.getByRole("button", { name: "Move Refunds up" }).click();
    await page.getByText("Refunds is now number 1.").waitFor();
    await expect.poll(async () => (await rows(page).first().textContent()) ?? "").toContain("Refunds");
    expect(await rows(page).first().textContent()).toContain("Payments");
    await screenshot(page, "203-settings-articles-reordered");
    await expectAccessible(page, "the articles list after a move");

    // The web support page in English and in German: the article first, under its section.
    const english = await openSupport(context, "en");
    await english.support.getByRole("heading", { name: "Payments", level: 3 }).waitFor();
    expect(await english.support.locator("#resources-title ~ ul a, #resources-title ~ h3").allTextContents()).toEqual(["Payments", "Refunds", "Billing"]);
    await screenshot(english.support, "204-web-support-articles-by-section-en");
    await expectAccessible(english.support, "the web support page with the article (en)");
    await english.support.getByRole("link", { name: "Refunds" }).click();
    await english.support.locator(".markdown strong", { hasText: "us" }).waitFor();
    // The page's rendering is the preview's.
    expect(await english.support.locator(".markdown li").count()).toBe(2);
    await screenshot(english.support, "205-web-support-article-en");
    const german = await openSupport(context, "de");
    await german.support.getByRole("heading", { name: "Zahlungen", level: 3 }).waitFor();
    await german.support.getByRole("link", { name: "Erstattungen" }).click();
    await german.support.locator(".markdown strong", { hasText: "uns" }).waitFor();
    await screenshot(german.support, "206-web-support-article-de");
    await expectAccessible(german.support, "the web support page's article (de)");

    // An announcement for the game: the primary language (English) is required.
    await page.goto(`${base}/app/settings/announcements`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Announcements");
    await page.getByLabel("Where it shows").selectOption({ label: "Galaxy" });
    await page.getByRole("tab", { name: "German" }).click();
    await page.getByLabel("Short text (German)").fill("Heute Abend Wartung");
    await page.getByRole("button", { name: "Save the announcement" }).click();
    await page.getByText("Enter the short text in English: it is the company's primary language.").waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("announcement-short");
    await screenshot(page, "207-settings-announcement-primary-language-required");
    await expectAccessible(page, "the announcement refused without the primary language");
    await page.getByLabel("Short text (English, required)").fill("Maintenance tonight");
    await page.getByLabel("Details (English, optional)").fill("From 22:00 to 23:00 UTC.");
    await page.getByRole("button", { name: "Save the announcement" }).click();
    await page.getByText("The announcement for Galaxy is saved.").waitFor();
    await screenshot(page, "208-settings-announcement-saved");
    await expectAccessible(page, "the announcements page with one set");
    await german.support.goto(`${base}/support/#/`);
    await german.support.reload();
    await german.support.getByText("Heute Abend Wartung").waitFor();
    await screenshot(german.support, "209-web-support-announcement-de");
    await english.support.goto(`${base}/support/#/`);
    await english.support.reload();
    await english.support.getByText("Maintenance tonight").waitFor();
    await screenshot(english.support, "210-web-support-announcement-en");

    // The audit log.
    await page.goto(`${base}/app/settings/audit-log`);
    const entries = page.locator(".audit-table tbody tr");
    await entries.first().waitFor();
    const texts = (await entries.allTextContents()).slice(0, 3);
    expect(texts.map((text) => /Announcement set|Help articles reordered|Help article added/.exec(text)?.[0])).toEqual(["Announcement set", "Help articles reordered", "Help article added"]);
    expect(texts.every((text) => text.includes("Ava Articles"))).toBe(true);
    expect(texts[0]).toContain("en: Maintenance tonight");
    await screenshot(page, "211-settings-audit-log-articles-and-announcements");
    await expectAccessible(page, "the audit log with the article and announcement changes");
    expect(problems).toEqual([]);
    expect(english.problems).toEqual([]);
    expect(german.problems).toEqual([]);
    await context.close();
  });

  it("writes and orders an article by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, ava, PASSWORD);
    await page.goto(`${base}/app/settings/articles`);
    await expect.poll(() => rows(page).count()).toBe(2);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await tabTo(page, "New article");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("article-title");
    await page.keyboard.type("Account recovery");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Account");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Use the **recovery code**.");
    await expect.poll(() => preview(page).locator(".markdown strong").textContent()).toBe("recovery code");
    // The German tab by the arrow keys (the tab list is one stop).
    await tabTo(page, "English");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("German");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Konto wiederherstellen");
    await expect.poll(() => preview(page).locator(".article-preview-heading").textContent()).toBe("Konto wiederherstellen");
    await screenshot(page, "212-settings-article-by-keyboard");
    await expectAccessible(page, "the article editor used by keyboard");
    await tabTo(page, "Add the article");
    await page.keyboard.press("Enter");
    await page.getByText("Account recovery is added.").waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("new-article");
    await tabTo(page, "Move Account recovery up");
    await page.keyboard.press("Enter");
    await page.getByText("Account recovery is now number 2.").waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Move Account recovery up");
    await screenshot(page, "213-settings-article-moved-by-keyboard");
    expect(problems).toEqual([]);
    await context.close();
  });
});
