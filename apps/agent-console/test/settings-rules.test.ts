// Settings → Rules in headless Chromium over the real stack: an admin writes a rule whose
// pattern the tickets service refuses (its reason at that condition), fixes it, adds a second
// rule, moves it up and down (the order kept on reload), turns it off; a new ticket runs the rule
// that is on (and not the one that is off), the rule's run history shows it, and the ticket's
// conversation and history name the rule (an agent, who cannot read the rules, sees "An
// automation rule"); the admin renames a rule and deletes the other. A rule on the outbreak trigger
// made and read back. A rule made, moved and deleted by keyboard alone. axe on every page,
// screenshots 340-359 and 380-381 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const NOTE = "VIP refund: check the payment provider.";

describe("Settings → Rules in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const rita = `rita-${suffix}@rules.example`;
  const bo = `bo-${suffix}@rules.example`;
  /** The company's tenant file, with `extra` parts (applied again, it changes only what differs). */
  const tenantFile = (extra: Record<string, unknown> = {}) => ({
    company: { name: "Rules Studio" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
    users: [
      { ref: "rita", name: "Rita Rules", email: rita, role: "admin", displayName: "Rita" },
      { ref: "bo", name: "Bo Agent", email: bo, role: "agent", displayName: "Bo", games: ["galaxy"] },
    ],
    tags: [{ name: "vip-refund", game: null }],
    ...extra,
  });

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant(tenantFile());
    for (const email of [rita, bo]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const names = (page: Page) => page.locator(".rules-list .rule-name").allTextContents();
  const itemOf = (page: Page, name: string) => page.locator(".rule-item", { has: page.locator(".rule-name", { hasText: new RegExp(`^${name.replace(/[()]/g, "\\$&")}$`) }) });

  it("writes, refuses, orders, turns off, runs, shows the runs and the ticket's history, renames and deletes", async () => {
    // The pattern below is refused on purpose.
    const { context, page, problems } = await signedInPage(browser, base, rita, PASSWORD, { expected: ["400 /agent-api/settings/rules"] });
    await page.goto(`${base}/app/settings/rules`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Rules");
    await page.getByText("No rules yet.").waitFor();
    expect(await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Rules" }).getAttribute("aria-current")).toBe("page");
    await screenshot(page, "340-settings-rules-empty");
    await expectAccessible(page, "the empty rules page");

    // Nothing filled in: the form says what is missing, without asking the API.
    await page.getByRole("button", { name: "Create the rule" }).click();
    await page.getByText("Give the rule a name.").waitFor();

    // A pattern RE2 does not take: the service's reason at that condition; nothing stored.
    await page.getByLabel("Name", { exact: true }).fill("VIP refunds");
    await page.getByRole("button", { name: "Add a condition" }).click();
    await page.getByLabel("Condition", { exact: true }).selectOption({ label: "Text matches the pattern" });
    await page.getByLabel("Pattern").fill("refund(?=s)");
    await page.getByLabel("Tags", { exact: true }).fill("vip-refund");
    await page.getByRole("button", { name: "Add an action" }).click();
    await page.locator("#rule-action-1-type").selectOption({ label: "Add a private note" });
    await page.locator("#rule-action-1-value").fill(NOTE);
    await page.getByRole("button", { name: "Create the rule" }).click();
    await page.locator("#rule-condition-0-error", { hasText: "Not accepted: is not a valid RE2 pattern" }).waitFor();
    expect(await page.getByRole("group", { name: "Condition 1" }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#rule-action-0-error").count()).toBe(0);
    await screenshot(page, "341-settings-rules-refused-pattern");
    await expectAccessible(page, "the rule form with a refused pattern");
    expect(await page.getByText("No rules yet.").count()).toBe(1);

    await page.getByLabel("Pattern").fill("refund|charge ?back");
    await page.getByRole("button", { name: "Create the rule" }).click();
    await page.getByText("The rule VIP refunds is saved.").waitFor();
    await expect.poll(() => names(page)).toEqual(["VIP refunds"]);
    expect(await itemOf(page, "VIP refunds").locator(".rule-summary").textContent()).toBe("A ticket is created · 1 condition(s) · Add tags, Add a private note");

    // A second rule, last in the order: it tests the tag the first one adds.
    await page.getByLabel("Name", { exact: true }).fill("Tag check");
    await page.getByRole("button", { name: "Add a condition" }).click();
    await page.getByLabel("Condition", { exact: true }).selectOption({ label: "Has one of the tags" });
    await page.getByLabel("Values").fill("vip-refund");
    await page.getByLabel("Action", { exact: true }).selectOption({ label: "Add a private note" });
    await page.getByLabel("Message").fill("Seen by the tag check.");
    await page.getByRole("button", { name: "Create the rule" }).click();
    await page.getByText("The rule Tag check is saved.").waitFor();
    await expect.poll(() => names(page)).toEqual(["VIP refunds", "Tag check"]);
    await screenshot(page, "342-settings-rules-two-rules");
    await expectAccessible(page, "two rules");

    // Moved up, and the order is the service's: a reload shows it; then back down.
    await page.getByRole("button", { name: "Move up: Tag check" }).click();
    await page.getByText("Tag check now runs as number 1.").waitFor();
    await expect.poll(() => names(page)).toEqual(["Tag check", "VIP refunds"]);
    expect(await page.getByRole("button", { name: "Move up: Tag check" }).isDisabled()).toBe(true);
    await screenshot(page, "343-settings-rules-moved-up");
    await page.reload();
    await expect.poll(() => names(page)).toEqual(["Tag check", "VIP refunds"]);
    await page.getByRole("button", { name: "Move down: Tag check" }).click();
    await expect.poll(() => names(page)).toEqual(["VIP refunds", "Tag check"]);

    // Turned off: it keeps its place and no longer runs.
    await page.getByRole("switch", { name: "Rule Tag check is on" }).uncheck();
    await page.getByText("Tag check is off: it keeps its place and runs no more.").waitFor();
    await expect.poll(() => itemOf(page, "Tag check").locator(".switch").textContent()).toBe("Off");
    await screenshot(page, "344-settings-rules-turned-off");
    await expectAccessible(page, "a rule turned off");

    // A ticket about a refund: the rule that is on runs, the one that is off does not.
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.galaxy!.id, message: "I want a REFUND for my ship", language: "en", channels: ["email"], metadata: { player: { id: `p-${suffix}`, name: "Pat Player", email: "pat@example.com", tier: 3 } } },
    });
    expect(created.status, created.text).toBe(200);
    const { ticketId } = created.body as { ticketId: string };
    await page.getByRole("button", { name: "Runs of VIP refunds" }).click();
    const runRows = page.locator(".rule-runs-table tbody tr");
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Runs of VIP refunds" }).click();
          await page.getByRole("button", { name: "Runs of VIP refunds" }).click();
          return (await runRows.first().textContent({ timeout: 2_000 }).catch(() => "")) ?? "";
        },
        { timeout: 30_000 },
      )
      .toContain("Applied");
    expect(await runRows.count()).toBe(1);
    expect(await runRows.first().textContent()).toContain("Add tags, Add a private note");
    expect(await runRows.first().textContent()).toContain("A ticket is created");
    await screenshot(page, "345-settings-rules-runs");
    await expectAccessible(page, "a rule's runs");
    await page.getByRole("button", { name: "Runs of Tag check" }).click();
    await page.getByText("This rule has not run yet.").waitFor();

    // The ticket: the note by the rule's name, and the rule's run in its history.
    await page.getByRole("button", { name: "Runs of VIP refunds" }).click();
    await runRows.first().getByRole("link").click();
    await expect.poll(() => page.url()).toBe(`${base}/app/tickets/${ticketId}`);
    await page.getByText("Private note · Rule VIP refunds").waitFor();
    await page.getByText(NOTE).waitFor();
    await page.getByRole("region", { name: "Tags" }).getByText("vip-refund").waitFor();
    const history = page.locator(".rule-runs-list li");
    await history.first().waitFor();
    expect(await history.allTextContents()).toEqual([expect.stringContaining("Rule VIP refunds: Applied (Add tags, Add a private note)")]);
    await page.getByText("Private note · Rule VIP refunds").scrollIntoViewIfNeeded();
    await screenshot(page, "346-ticket-rule-note-and-history");
    await expectAccessible(page, "a ticket a rule changed");

    // An agent of the game sees the note by the rule's name and the rule's run on the ticket
    // (the rules themselves and their settings are the admins').
    const agent = await signedInPage(browser, base, bo, PASSWORD);
    await agent.page.goto(`${base}/app/tickets/${ticketId}`);
    await agent.page.getByText("Private note · Rule VIP refunds").waitFor();
    const agentHistory = agent.page.locator(".rule-runs-list li");
    await agentHistory.first().waitFor();
    expect(await agentHistory.allTextContents()).toEqual([expect.stringContaining("Rule VIP refunds: Applied (Add tags, Add a private note)")]);
    await screenshot(agent.page, "347-ticket-rule-note-agent");
    await expectAccessible(agent.page, "a ticket a rule changed, as an agent");
    expect(agent.problems).toEqual([]);
    await agent.context.close();

    // Renamed: the form holds the rule as saved; the list shows the new name.
    await page.goto(`${base}/app/settings/rules`);
    await page.getByRole("button", { name: "Change the rule VIP refunds" }).click();
    await page.getByRole("heading", { name: "Change the rule VIP refunds", level: 2 }).waitFor();
    expect(await page.getByLabel("Pattern").inputValue()).toBe("refund|charge ?back");
    expect(await page.getByLabel("Tags", { exact: true }).inputValue()).toBe("vip-refund");
    expect(await page.locator("#rule-action-1-value").inputValue()).toBe(NOTE);
    await page.getByLabel("Name", { exact: true }).fill("VIP refunds (payments)");
    await screenshot(page, "348-settings-rules-editing");
    await expectAccessible(page, "a rule being changed");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("The rule VIP refunds (payments) is saved.").waitFor();
    await expect.poll(() => names(page)).toEqual(["VIP refunds (payments)", "Tag check"]);

    // Deleted with a second click.
    await page.getByRole("button", { name: "Delete the rule Tag check" }).click();
    await screenshot(page, "349-settings-rules-confirm-delete");
    await page.getByRole("button", { name: "Really delete the rule Tag check (its runs stay in the tickets' history)" }).click();
    await page.getByText("The rule Tag check is deleted.").waitFor();
    await expect.poll(() => names(page)).toEqual(["VIP refunds (payments)"]);
    await screenshot(page, "350-settings-rules-after-delete");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("offers the outbreak trigger: a rule on the tickets of an incident", async () => {
    const { context, page, problems } = await signedInPage(browser, base, rita, PASSWORD);
    await page.goto(`${base}/app/settings/rules`);
    await page.locator(".rules-list").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Outage tickets");
    await page.locator("#rule-trigger").selectOption({ label: "A ticket becomes part of an incident" });
    await page.getByText("Runs once on each ticket of an incident of outbreak detection: the tickets it opens with, and each ticket that joins it later.").waitFor();
    await page.getByLabel("Tags", { exact: true }).fill("vip-refund");
    await screenshot(page, "380-settings-rules-outbreak-trigger");
    await expectAccessible(page, "a rule with the outbreak trigger");
    await page.getByRole("button", { name: "Create the rule" }).click();
    await page.getByText("The rule Outage tickets is saved.").waitFor();
    expect(await itemOf(page, "Outage tickets").locator(".rule-summary").textContent()).toBe("A ticket becomes part of an incident · 0 condition(s) · Add tags");
    // Stored as the outbreak trigger: the form reads it back.
    await page.getByRole("button", { name: "Change the rule Outage tickets" }).click();
    await page.getByRole("heading", { name: "Change the rule Outage tickets", level: 2 }).waitFor();
    expect(await page.locator("#rule-trigger").inputValue()).toBe("outbreak");
    await screenshot(page, "381-settings-rules-outbreak-editing");

    // Deleted again: the next test starts from the list as it was.
    await page.goto(`${base}/app/settings/rules`);
    await page.getByRole("button", { name: "Delete the rule Outage tickets" }).click();
    await page.getByRole("button", { name: "Really delete the rule Outage tickets (its runs stay in the tickets' history)" }).click();
    await page.getByText("The rule Outage tickets is deleted.").waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it("makes, moves and deletes a rule by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, rita, PASSWORD);
    await page.goto(`${base}/app/settings/rules`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await page.locator(".rules-list").waitFor();
    await tabTo(page, "Name", 80);
    await page.keyboard.type("Keyboard rule");
    await tabTo(page, "Trigger");
    // A select takes the arrow keys: the next trigger is "The player writes again".
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.locator("#rule-trigger").inputValue()).toBe("player_message");
    await tabTo(page, "Tags");
    await page.keyboard.type("vip-refund");
    await screenshot(page, "351-settings-rules-keyboard-form");
    await tabTo(page, "Create the rule");
    await page.keyboard.press("Enter");
    await page.getByText("The rule Keyboard rule is saved.").waitFor();
    await expect.poll(() => names(page)).toEqual(["VIP refunds (payments)", "Keyboard rule"]);
    expect(await itemOf(page, "Keyboard rule").locator(".rule-summary").textContent()).toBe("The player writes again · 0 condition(s) · Add tags");

    // Moved up by keyboard: the focus stays with the rule (its up button is now off, so on its down button).
    await page.getByRole("heading", { level: 1 }).focus();
    await tabTo(page, "Move up: Keyboard rule", 80);
    await page.keyboard.press("Enter");
    await expect.poll(() => names(page)).toEqual(["Keyboard rule", "VIP refunds (payments)"]);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")).toBe("Move down: Keyboard rule");
    await screenshot(page, "352-settings-rules-keyboard-moved");
    await expectAccessible(page, "the keyboard user's rules");

    await tabTo(page, "Delete the rule Keyboard rule");
    await page.keyboard.press("Enter");
    // The second click's button takes the focus: Enter again confirms.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")).toBe("Really delete the rule Keyboard rule (its runs stay in the tickets' history)");
    await page.keyboard.press("Enter");
    await expect.poll(() => names(page)).toEqual(["VIP refunds (payments)"]);
    await screenshot(page, "353-settings-rules-keyboard-deleted");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("marks a rule a tenant file keeps, and says so where it is changed", async () => {
    await stack.applyTenant(tenantFile({
      rules: [{ name: "Operator refunds", trigger: { type: "ticket_created" }, conditions: [{ type: "text", contains: "refund" }], actions: [{ type: "addTags", tagNames: ["vip-refund"] }] }],
    }));
    const { context, page, problems } = await signedInPage(browser, base, rita, PASSWORD);
    await page.goto(`${base}/app/settings/rules`);
    await expect.poll(() => names(page)).toContain("Operator refunds");
    expect(await itemOf(page, "Operator refunds").locator(".badge").textContent()).toBe("Set up by the platform operator");
    expect(await itemOf(page, "VIP refunds (payments)").locator(".badge").count()).toBe(0);
    await screenshot(page, "354-settings-rules-from-tenant-file");
    // At 360 px the badge wraps under the name; the switch stays in its row.
    await page.setViewportSize({ width: 360, height: 740 });
    await itemOf(page, "Operator refunds").scrollIntoViewIfNeeded();
    await screenshot(page, "356-settings-rules-from-tenant-file-360");
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole("button", { name: "Change the rule Operator refunds" }).click();
    await page.getByText("The platform operator keeps this rule in the company's tenant file").waitFor();
    await screenshot(page, "355-settings-rules-tenant-file-rule-editing");
    await expectAccessible(page, "a rule a tenant file keeps, being changed");
    expect(problems).toEqual([]);
    await context.close();
  });
});
