// Search and the keyboard shortcuts' dialog in headless Chromium over the real stack: `/` focuses
// the inbox's search field, Enter lists the matching tickets of the agent's games with the
// matched words marked (a German word by its stem, the running number; text that looks like
// markup stays text), a result opens its ticket; `?` opens the list of shortcuts, which keeps the
// focus inside until Escape closes it and gives the focus back. axe on every page, a screenshot
// of every step in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("search and shortcuts in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@search.example`;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Search Studio" },
      apiKeys: [{ name: "main" }],
      games: [
        { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "galaxy-prod", name: "production" }] },
        { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
      ],
      users: [{ ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["galaxy"] }],
    });
    await stack.admin(["users", "set-password", "--email", ada], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const agentPage = (email: string) => signedInPage(browser, base, email, PASSWORD);

  async function createTicket(game: string, name: string, message: string, language = "en"): Promise<{ id: string; runningId: number }> {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games[game]!.id, message, language, channels: ["email"], metadata: { player: { id: `p-${randomUUID().slice(0, 6)}`, name, email: "pat@example.com", tier: 2 } } },
    });
    expect(created.status, created.text).toBe(200);
    const { ticketId, runningId } = created.body as { ticketId: string; runningId: number };
    return { id: ticketId, runningId };
  }

  /** The snippets of the results, matched words in brackets. */
  const snippets = (page: Page) =>
    page.locator(".snippet").evaluateAll((nodes) => nodes.map((node) => [...node.childNodes].map((child) => (child.nodeName === "MARK" ? `[${child.textContent}]` : child.textContent)).join("")));

  it("searches from the inbox with / and Enter, marks the matched words, and opens a result", async () => {
    const german = await createTicket("galaxy", "Hanna Haus", "Meine Häuser sind nach dem Update verschwunden.", "de");
    const markup = await createTicket("galaxy", "Max Markup", "The <img src=x onerror=alert(1)> shield of my <b>ship</b> broke.");
    await createTicket("farm", "Fiona Farm", "Meine Häuser auf dem Hof sind weg.", "de");
    const { context, page, problems } = await agentPage(ada);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Mine");
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");

    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("search-input");
    await screenshot(page, "50-search-field-focused");
    await expectAccessible(page, "the inbox with its search field");
    await page.keyboard.type("Haus");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toBe(`${base}/app/search?q=Haus`);
    const results = page.getByRole("list", { name: "Search results" });
    await results.getByRole("listitem").first().waitFor();
    // The agent lacks the farm game: its ticket with the same words is not found.
    expect(await results.getByRole("listitem").count()).toBe(1);
    expect(await results.textContent()).toContain("Hanna Haus");
    expect(await snippets(page)).toEqual(["Message: Meine [Häuser] sind nach dem Update verschwunden."]);
    expect(await page.locator(".snippet mark").count()).toBe(1);
    await screenshot(page, "51-search-results-german-stem");
    await expectAccessible(page, "the search results");

    // Text that looks like markup is shown as text.
    const field = page.getByLabel("Search tickets");
    await field.fill("shield");
    await field.press("Enter");
    await expect.poll(() => page.url()).toBe(`${base}/app/search?q=shield`);
    await expect.poll(() => snippets(page)).toEqual(["Message: The <img src=x onerror=alert(1)> [shield] of my <b>ship</b> broke."]);
    expect(await page.locator(".snippet img, .snippet b").count()).toBe(0);
    await screenshot(page, "52-search-results-markup-as-text");

    // The running number.
    await field.fill(`#${german.runningId}`);
    await field.press("Enter");
    await expect.poll(() => snippets(page)).toEqual([`Ticket number: [#${german.runningId}]`]);

    // Nothing found.
    await field.fill("zeppelin");
    await field.press("Enter");
    await page.getByText("No tickets match this search.").waitFor();
    await screenshot(page, "53-search-no-results");
    await expectAccessible(page, "a search without results");

    // A result opens its ticket (the browser's back button returns to the results).
    await field.fill("shield broke");
    await field.press("Enter");
    await results.getByRole("link", { name: /Max Markup/ }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/tickets/${markup.id}`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain("Max Markup");
    await screenshot(page, "54-search-result-opened");
    await page.goBack();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Results for “shield broke”");
    await results.getByRole("listitem").first().waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("saves a search as a view, lists it in the inbox's sidebar, opens and deletes it", async () => {
    await createTicket("galaxy", "Sam Saved", "The anvil of my forge cracked in two.");
    const { context, page, problems } = await agentPage(ada);
    await page.goto(`${base}/app/search?q=anvil`);
    await page.getByRole("listitem").filter({ hasText: "Sam Saved" }).waitFor();
    await page.getByLabel("Save this search as a view named").fill("Anvils");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as “Anvils”", { exact: false }).waitFor();
    await screenshot(page, "57-search-saved");
    await page.getByRole("link", { name: "Back to the inbox" }).click();
    const saved = page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Anvils" });
    await saved.waitFor();
    await screenshot(page, "58-saved-view-in-sidebar");
    await expectAccessible(page, "the inbox with a saved view");
    await saved.click();
    await expect.poll(() => page.url()).toBe(`${base}/app/search?q=anvil`);
    await page.getByRole("listitem").filter({ hasText: "Sam Saved" }).waitFor();
    await page.goBack();
    await page.getByRole("button", { name: "Delete the view Anvils" }).click();
    await expect.poll(() => page.getByRole("link", { name: "Anvils" }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("lists the shortcuts with ?, keeps the focus in the dialog, closes with Escape and gives the focus back", async () => {
    const { context, page, problems } = await agentPage(ada);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Mine");
    const firstView = page.getByRole("navigation", { name: "Views" }).getByRole("link").first();
    await firstView.focus();
    await page.keyboard.press("?");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await dialog.waitFor();
    const rows = await dialog.getByRole("row").evaluateAll((nodes) => nodes.map((node) => node.textContent));
    expect(rows).toEqual([
      "KeyAction", "j / kMove down / up in a ticket list", "EnterOpen the selected ticket", "rReply to the ticket (on a ticket)",
      "nAdd a private note (on a ticket)", "eResolve the ticket (on a ticket)", "/Search tickets", "?Show these shortcuts",
    ]);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Close");
    for (let i = 0; i < 4; i += 1) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true);
    }
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true);
    // Keys of the page below do nothing while it is open.
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).not.toBe("search-input");
    await screenshot(page, "55-shortcuts-dialog");
    await expectAccessible(page, "the shortcuts dialog");
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Mine");
    // Without a search field on the page, / opens the search page.
    await page.goto(`${base}/app/account`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await page.keyboard.press("/");
    await expect.poll(() => page.url()).toBe(`${base}/app/search`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("search-input");
    await screenshot(page, "56-search-page-from-slash");
    await expectAccessible(page, "the empty search page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
