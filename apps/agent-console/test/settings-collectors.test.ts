// Settings → Collectors in headless Chromium over the real stack: an admin builds a collector
// with several field types (adding, reordering, labelling, options), watches the live preview
// drawn with the web support page's own component, saves it and makes it the game's contact
// form; the web support page of that game (opened with the environment's token) shows it and a
// player sends it; the admin changes and retires it, and finds every change in the audit log. A
// collector built by keyboard alone. axe on every page, screenshots 160-179 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, watchPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("Settings → Collectors in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let supportBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const bea = `bea-${suffix}@forms.example`;

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
      company: { name: "Forms Studio" },
      apiKeys: [{ name: "main" }],
      games: [
        { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
        { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
      ],
      users: [{ ref: "bea", name: "Bea Forms", email: bea, role: "admin" }],
    });
    await stack.admin(["users", "set-password", "--email", bea], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const gameTable = (page: Page, game: string) => page.getByRole("table", { name: game }).locator("tbody tr");
  const fieldEditor = (page: Page, index: number) => page.locator(".collector-field").nth(index);
  const preview = (page: Page) => page.locator(".player-preview .collector-form");
  const previewLabels = (page: Page) => preview(page).locator(":scope > .field > label, :scope > .field > legend, :scope > fieldset > legend").allTextContents();

  async function addField(page: Page, label: string, type: string, options?: string) {
    await page.getByRole("button", { name: "Add field" }).click();
    const editor = page.locator(".collector-field").last();
    await editor.getByLabel("Label").fill(label);
    await editor.getByLabel("Type").selectOption({ label: type });
    if (options !== undefined) await editor.getByLabel(type === "Platform" ? "Platforms" : "Options").fill(options);
  }

  it("builds a collector with a live preview, makes it the contact form, and a player sends it on the web support page", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/collectors`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Collectors");
    await expect.poll(() => page.getByText("No collectors yet.").count()).toBe(2);
    await screenshot(page, "160-settings-collectors-empty");
    await expectAccessible(page, "the empty collectors page");

    // The builder: a title and fields of several types; the preview follows every keystroke.
    await page.getByRole("button", { name: "New collector" }).click();
    await page.getByRole("heading", { name: "New collector", level: 2 }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("collector-title");
    await page.getByLabel("Game").selectOption({ label: "Galaxy" });
    await page.getByLabel("Title", { exact: true }).fill("Bug report");
    await fieldEditor(page, 0).getByLabel("Label").fill("What happened?");
    expect(await fieldEditor(page, 0).getByLabel("Key").inputValue()).toBe("what_happened");
    await fieldEditor(page, 0).getByLabel("Required").check();
    await addField(page, "Where", "Dropdown (one option)", "Lobby\nMatch\nShop");
    await fieldEditor(page, 1).getByLabel("Required").check();
    await addField(page, "Your email", "Email address");
    await addField(page, "Platform", "Platform");
    await addField(page, "Topics", "Checkboxes (several options)", "Crash\nLag");
    await addField(page, "When", "Date");
    await addField(page, "I may be contacted", "Single checkbox");
    await addField(page, "Screenshot", "File upload");
    await expect.poll(() => preview(page).locator(":scope > legend").textContent()).toBe("Bug report");
    await expect.poll(() => previewLabels(page)).toEqual([
      "What happened?", "Where", "Your email (optional)", "Platform (optional)", "Topics (optional)", "When (optional)", "I may be contacted (optional)", "Screenshot (optional)",
    ]);
    expect(await preview(page).locator("select#preview-where option").allTextContents()).toEqual(["—", "Lobby", "Match", "Shop"]);
    expect(await preview(page).locator("select#preview-platform option").count()).toBe(13);
    expect(await preview(page).locator("input#preview-i_may_be_contacted[type=checkbox]").count()).toBe(1);
    expect(await preview(page).locator("input#preview-screenshot[type=file]").count()).toBe(1);
    // The preview is the web support page's stylesheet: its palette, not the console's.
    expect(await preview(page).evaluate((element) => getComputedStyle(element).borderTopColor)).toBe("rgb(197, 204, 214)");
    await screenshot(page, "161-settings-collector-builder-with-preview");
    await expectAccessible(page, "the collector builder with its preview");

    // Reorder: the email goes first; remove the date; a missing option is refused at its field.
    await fieldEditor(page, 2).getByRole("button", { name: "Move Your email up" }).click();
    await fieldEditor(page, 1).getByRole("button", { name: "Move Your email up" }).click();
    await fieldEditor(page, 5).getByRole("button", { name: "Remove When" }).click();
    const built = ["Your email (optional)", "What happened?", "Where", "Platform (optional)", "Topics (optional)", "I may be contacted (optional)", "Screenshot (optional)"];
    await expect.poll(() => previewLabels(page)).toEqual(built);
    await fieldEditor(page, 4).getByLabel("Options").fill("");
    await page.getByRole("button", { name: "Create collector" }).click();
    await page.getByText("Enter at least one option.").waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
    await screenshot(page, "162-settings-collector-builder-refuses-missing-options");
    await fieldEditor(page, 4).getByLabel("Options").fill("Crash\nLag");
    await page.getByRole("button", { name: "Create collector" }).click();
    await page.getByText("Bug report is created.", { exact: false }).waitFor();
    await expect.poll(() => gameTable(page, "Galaxy").count()).toBe(1);
    expect(await gameTable(page, "Galaxy").first().textContent()).toContain("Your email, What happened?, Where, Platform, Topics, I may be contacted, Screenshot");

    // The game's contact form.
    await gameTable(page, "Galaxy").first().getByRole("button", { name: "Use Bug report as the contact form" }).click();
    await page.getByText("Bug report is now the contact form of Galaxy.").waitFor();
    await gameTable(page, "Galaxy").first().getByText("Contact form", { exact: true }).waitFor();
    await screenshot(page, "163-settings-collector-is-contact-form");
    await expectAccessible(page, "the collectors page with a contact form");

    // The web support page of Galaxy, opened with its environment's token, shows it; a player sends it.
    const token = tenant.games.galaxy!.environments["galaxy-prod"]!.token;
    const support = await context.newPage();
    const supportProblems = watchPage(support, base);
    await support.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token, "player.id": `pia-${suffix}`, "player.name": "Pia", "player.email": "pia@example.com" })}`);
    await support.getByRole("link", { name: "Contact support" }).click();
    await support.locator("fieldset.collector > legend", { hasText: "Bug report" }).waitFor();
    // The same labels, in the same order, with the same markup as the preview's.
    expect(await support.locator("fieldset.collector > .field > label, fieldset.collector > .field > legend, fieldset.collector > fieldset > legend").allTextContents()).toEqual(built);
    await screenshot(support, "164-web-support-shows-the-new-collector");
    await expectAccessible(support, "the web support page's contact form with the new collector");
    await support.locator("#message").fill("The lobby froze");
    await support.locator("#field-your_email").fill("pia@example.com");
    await support.locator("#field-what_happened").fill("Everything stopped");
    await support.locator("#field-where").selectOption("Lobby");
    await support.locator("#field-topics-0").check();
    await support.locator("button[type=submit]").click();
    await support.waitForURL(/#\/tickets\//, { timeout: 30_000 });
    const ticketId = decodeURIComponent(support.url().split("#/tickets/")[1]!);
    await support.locator(".bubble.form dd", { hasText: "Lobby" }).waitFor();
    await screenshot(support, "165-web-support-collector-sent");
    const events = ((await stack.request(`/tickets/${ticketId}/events`, { key: tenant.apiKeys.main! })).body as { events: { type: string; title?: string; fields?: unknown[] }[] }).events;
    expect(events.find((event) => event.type === "COLLECTOR_RESULT")).toMatchObject({
      title: "Bug report",
      fields: expect.arrayContaining([
        expect.objectContaining({ key: "your_email", type: "EMAIL", value: "pia@example.com" }),
        expect.objectContaining({ key: "where", type: "DROPDOWN", value: ["Lobby"] }),
        expect.objectContaining({ key: "topics", type: "SELECT_GROUP", value: ["Crash"] }),
      ]),
    });

    // A change: a new title and label; the web page shows it at once.
    await gameTable(page, "Galaxy").first().getByRole("button", { name: "Change Bug report" }).click();
    await page.getByRole("heading", { name: "Change Bug report", level: 2 }).waitFor();
    await page.getByLabel("Title", { exact: true }).fill("Report a bug");
    await fieldEditor(page, 2).getByLabel("Label").fill("Where did it happen?");
    expect(await fieldEditor(page, 2).getByLabel("Key").inputValue()).toBe("where");
    await expect.poll(() => previewLabels(page)).toContain("Where did it happen?");
    await screenshot(page, "166-settings-collector-change");
    await expectAccessible(page, "the builder changing a collector");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("The changes to Report a bug are saved", { exact: false }).waitFor();
    // The page reads the session (with its contact form) when it loads.
    await support.goto(`${base}/support/#/contact`);
    await support.reload();
    await support.locator("fieldset.collector > legend", { hasText: "Report a bug" }).waitFor();
    await support.locator("label[for=field-where]", { hasText: "Where did it happen?" }).waitFor();
    await screenshot(support, "167-web-support-shows-the-change");

    // Retire it (a second click confirms): the web page has no collector any more; the ticket keeps the answers.
    await gameTable(page, "Galaxy").first().getByRole("button", { name: "Retire Report a bug" }).click();
    await screenshot(page, "168-settings-collector-retire-confirm");
    await gameTable(page, "Galaxy").first().getByRole("button", { name: "Retire Report a bug now" }).click();
    await page.getByText("Report a bug is retired.", { exact: false }).waitFor();
    await expect.poll(() => page.getByText("No collectors yet.").count()).toBe(2);
    await screenshot(page, "169-settings-collector-retired");
    await support.reload();
    await support.locator("#message").waitFor();
    await support.getByRole("heading", { level: 1, name: "Contact support" }).waitFor();
    expect(await support.locator("fieldset.collector").count()).toBe(0);
    await support.goto(`${base}/support/#/tickets/${encodeURIComponent(ticketId)}`);
    await support.locator(".bubble.form dd", { hasText: "Lobby" }).waitFor();
    await screenshot(support, "170-web-support-ticket-keeps-the-answers");

    // The audit log: every change, by Bea.
    await page.goto(`${base}/app/settings/audit-log`);
    const rows = page.locator(".audit-table tbody tr");
    await rows.first().waitFor();
    const texts = (await rows.allTextContents()).slice(0, 4);
    expect(texts.map((text) => /Collector (created|changed|retired)|Contact form chosen/.exec(text)?.[0])).toEqual(["Collector retired", "Collector changed", "Contact form chosen", "Collector created"]);
    expect(texts.every((text) => text.includes("Bea Forms"))).toBe(true);
    expect(texts[1]).toContain("Title: Bug report → Report a bug");
    await screenshot(page, "171-settings-audit-log-collectors");
    await expectAccessible(page, "the audit log with the collector changes");
    expect(problems).toEqual([]);
    expect(supportProblems).toEqual([]);
    await context.close();
  });

  it("builds a collector by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/collectors`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLInputElement | null;
        return (element?.getAttribute("aria-label") || element?.labels?.[0]?.textContent || element?.textContent || "").trim();
      });
    const focusOn = async (label: string) => {
      for (let step = 0; step < 60; step += 1) {
        await page.keyboard.press("Tab");
        if ((await focused()) === label) return;
      }
      throw new Error(`no focusable "${label}" by Tab`);
    };
    await focusOn("New collector");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("collector-title");
    await page.keyboard.type("Refund request");
    // The game, just before the title: Farm (the first by name), then Galaxy.
    await page.keyboard.press("Shift+Tab");
    await expect.poll(focused).toBe("Game");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.getByLabel("Game").inputValue()).toBe(tenant.games.galaxy!.id);
    await focusOn("Label");
    await page.keyboard.type("Order number");
    await focusOn("Required");
    await page.keyboard.press("Space");
    await focusOn("Add field");
    await page.keyboard.press("Enter");
    // The new field's label takes the focus.
    await expect.poll(focused).toBe("Label");
    await page.keyboard.type("Store");
    await page.keyboard.press("Tab");
    await expect.poll(focused).toBe("Type");
    // Text, Email address, Date, Dropdown: three down.
    for (let step = 0; step < 3; step += 1) await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.locator(".collector-field").last().getByLabel("Type").inputValue()).toBe("DROPDOWN");
    await focusOn("Options");
    await page.keyboard.type("App Store\nGoogle Play");
    // Move it up by keyboard: the focus stays on the moved field's buttons.
    await focusOn("Move Store up");
    await page.keyboard.press("Enter");
    await expect.poll(focused).toBe("Move Store down");
    await expect.poll(() => previewLabels(page)).toEqual(["Store (optional)", "Order number"]);
    await screenshot(page, "172-settings-collector-by-keyboard");
    await expectAccessible(page, "the builder used by keyboard");
    await focusOn("Create collector");
    await page.keyboard.press("Enter");
    await page.getByText("Refund request is created.", { exact: false }).waitFor();
    await expect.poll(focused).toBe("New collector");
    await expect.poll(async () => (await gameTable(page, "Galaxy").allTextContents()).some((text) => text.includes("Refund request") && text.includes("Store, Order number"))).toBe(true);
    await screenshot(page, "173-settings-collector-created-by-keyboard");
    expect(problems).toEqual([]);
    await context.close();
  });
});
