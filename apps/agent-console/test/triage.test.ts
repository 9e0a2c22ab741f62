// Triage of the AI flags in headless Chromium over the real stack (docs/automation.md): an admin
// trains the company's model on tickets an agent labelled and resolved and sets the threshold
// (Settings → Triage); on a new ticket, a tag the triage is sure of is set ("set by triage") and
// ones it is less sure of are suggested; the agent applies one with the keyboard and dismisses
// another with a click; the admin sees them counted in the online precision. axe on every page,
// a screenshot of every step (300–319) in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const BUG = ["The game crashes when I open the map", "Game keeps crashing at the loading screen", "Crash after the update on startup", "It froze and crashed during the boss fight"];
const PAYMENT = ["I was charged twice for the gem pack", "My purchase of coins did not arrive", "Payment went through but no gems", "Refund please, I bought the wrong bundle"];

describe("triage in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const adam = `adam-${suffix}@triage.example`;
  const mia = `mia-${suffix}@triage.example`;

  async function newTicket(message: string): Promise<string> {
    const response = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.arena!.id, message, language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } } },
    });
    expect(response.status, response.text).toBe(200);
    return (response.body as { ticketId: string }).ticketId;
  }

  /** Mia's session over the API, as her console would hold it. */
  async function miaSession(): Promise<{ cookie: string; csrfToken: string }> {
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email: mia, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    return { cookie, csrfToken };
  }

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Triage Studio" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en"], environments: [{ ref: "arena-prod", name: "production" }] }],
      users: [
        { ref: "adam", name: "Adam Admin", email: adam, role: "admin" },
        { ref: "mia", name: "Mia Meyer", email: mia, role: "agent", games: ["arena"] },
      ],
      tags: [{ name: "bug", game: null, isAiTag: true }, { name: "payment", game: null, isAiTag: true }, { name: "vip", game: null }],
      fields: [{ key: "category", name: "Category", type: "dropdown", game: null, options: ["technical", "billing", "other"], isAiField: true }],
    });
    for (const email of [adam, mia]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    // Mia's history: 56 tickets she tagged, categorised and resolved.
    const session = await miaSession();
    for (let i = 0; i < 56; i++) {
      const bug = i % 2 === 0;
      const ticketId = await newTicket((bug ? BUG : PAYMENT)[Math.floor(i / 2) % 4]! + (i % 3 === 0 ? " please help" : ""));
      const done = await stack.request(`/agent-api/tickets/${ticketId}/actions`, {
        method: "POST",
        headers: { cookie: session.cookie, origin: base, "x-csrf-token": session.csrfToken },
        json: { actions: [{ type: "addTags", tagNames: [bug ? "bug" : "payment"] }, { type: "setFields", fields: { category: bug ? "technical" : "billing" } }, { type: "resolveTicket" }] },
      });
      expect(done.status, done.text).toBe(200);
    }
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("trains, sets above the threshold, suggests below, applies a suggestion with one key press and counts it", async () => {
    // The admin trains the model and sets the threshold to 90 %; a threshold outside 50..100 is refused at its field.
    const admin = await signedInPage(browser, base, adam, PASSWORD);
    const adminPage = admin.page;
    await adminPage.goto(`${base}/app/settings`);
    await adminPage.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Triage" }).click();
    await adminPage.getByText("No model yet", { exact: false }).waitFor();
    await screenshot(adminPage, "300-triage-settings-no-model");
    await expectAccessible(adminPage, "the triage settings without a model");
    await adminPage.getByRole("button", { name: "Train now" }).click();
    await adminPage.getByText("The model is trained.").waitFor();
    await adminPage.getByText("on 56 labelled tickets", { exact: false }).waitFor();
    expect(await adminPage.getByText("Predicts: bug, payment, category").count()).toBe(1);
    await screenshot(adminPage, "301-triage-trained");
    await expectAccessible(adminPage, "the triage settings with a model");
    const threshold = adminPage.getByLabel("Set values the triage is at least this sure of (%)");
    expect(await threshold.inputValue()).toBe("80");
    await threshold.fill("40");
    await adminPage.getByRole("button", { name: "Save", exact: true }).click();
    await adminPage.getByText("Enter a number from 50 to 100.").waitFor();
    await screenshot(adminPage, "302-triage-threshold-refused");
    await expectAccessible(adminPage, "a refused threshold");
    await threshold.fill("90");
    await threshold.press("Enter");
    await adminPage.getByText("The threshold is saved; it applies to new tickets.").waitFor();
    await screenshot(adminPage, "303-triage-threshold-saved");

    // New tickets: one the triage is sure of, one it is not.
    const sure = await newTicket("The game crashes every time I open the map");
    const unsure = await newTicket("The shop crashed when I bought gems");
    const session = await miaSession();
    const predictionsOf = async (ticketId: string) => ((await stack.request(`/agent-api/tickets/${ticketId}/triage`, { headers: { cookie: session.cookie } })).body as { predictions: { name: string; state: string }[] }).predictions;
    await expect.poll(async () => (await predictionsOf(sure)).length, { timeout: 20_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await predictionsOf(unsure)).length, { timeout: 20_000 }).toBeGreaterThan(0);

    const agent = await signedInPage(browser, base, mia, PASSWORD);
    const page = agent.page;
    await page.goto(`${base}/app/tickets/${sure}`);
    const tags = page.getByRole("region", { name: "Tags" }).locator("ul.tags li");
    await expect.poll(() => tags.allTextContents()).toEqual([expect.stringContaining("bug(set by triage)")]);
    expect(await page.getByRole("region", { name: "Suggestions" }).count()).toBe(0);
    await screenshot(page, "304-triage-set-by-triage");
    await expectAccessible(page, "a ticket with a tag set by the triage");

    await page.goto(`${base}/app/tickets/${unsure}`);
    const suggestions = page.getByRole("region", { name: "Suggestions" });
    await suggestions.waitFor();
    expect(await suggestions.locator("li .suggestion-text").allTextContents()).toEqual(expect.arrayContaining(["Tag bug", "Category: technical"]));
    expect(await tags.count()).toBe(0);
    await screenshot(page, "305-triage-suggestions");
    await expectAccessible(page, "a ticket with suggestions");

    // One key press applies the tag (the keyboard reaches it with Tab); a click dismisses the category.
    await tabTo(page, "Apply suggestion: Tag bug");
    await screenshot(page, "306-triage-apply-focused");
    await page.keyboard.press("Enter");
    await expect.poll(() => tags.allTextContents()).toEqual(["bug×"]);
    expect(await suggestions.locator("li .suggestion-text").allTextContents()).toEqual(["Category: technical"]);
    await screenshot(page, "307-triage-applied");
    await expectAccessible(page, "the applied suggestion");
    await page.getByRole("button", { name: "Dismiss suggestion: Category: technical" }).click();
    await expect.poll(() => page.getByText("Category: technical").count()).toBe(0);
    await screenshot(page, "308-triage-dismissed");
    expect((await predictionsOf(unsure)).map((p) => p.state).sort()).toEqual(expect.arrayContaining(["applied", "dismissed"]));

    // The admin sees both counted.
    await adminPage.reload();
    const all = adminPage.getByRole("table", { name: "Online precision" }).getByRole("row", { name: /^All/ });
    await expect.poll(() => all.textContent()).toContain("1 right");
    expect(await all.textContent()).toContain("1 wrong");
    await screenshot(adminPage, "309-triage-precision");
    await expectAccessible(adminPage, "the online precision");

    expect(agent.problems).toEqual([]);
    expect(admin.problems).toEqual([]);
    await agent.context.close();
    await admin.context.close();
  }, 240_000);
});
