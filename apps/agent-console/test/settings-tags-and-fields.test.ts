// Settings → Tags and fields in headless Chromium over the real stack: an admin creates a skill
// tag for a game and a dropdown field, changes them, finds both on a ticket (the tag offered,
// the field with its options), sets them there, retires both (the ticket keeps the tag and shows
// the field's value under "Retired fields"), finds every change in the audit log; a tag created
// by keyboard alone. axe on every page, a screenshot of every step in .ci/out/agent-console/.
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

describe("tags and fields in the settings, in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const bea = `bea-${suffix}@vocabulary.example`;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Vocabulary Studio" },
      apiKeys: [{ name: "main" }],
      games: [
        { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
        { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
      ],
      users: [{ ref: "bea", name: "Bea Keys", email: bea, role: "admin" }],
    });
    await stack.admin(["users", "set-password", "--email", bea], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const tagRows = (page: Page) => page.getByRole("table", { name: "Tags" }).locator("tbody tr");
  const fieldRows = (page: Page) => page.getByRole("table", { name: "Custom fields" }).locator("tbody tr");

  async function createTicket(): Promise<string> {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.galaxy!.id, message: "My shield breaks on the Switch", language: "en", channels: ["email"], metadata: { player: { id: `p-${suffix}`, name: "Pat", email: "pat@example.com" } } },
    });
    expect(created.status, created.text).toBe(200);
    return (created.body as { ticketId: string }).ticketId;
  }

  it("creates, changes and retires a tag and a field, which tickets use and keep", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD, { expected: ["409 /agent-api/settings/tags"] });
    await page.goto(`${base}/app/settings/tags-and-fields`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Tags and fields");
    await page.getByText("The company has no tags yet.").waitFor();
    await screenshot(page, "140-settings-tags-and-fields-empty");
    await expectAccessible(page, "the empty tags and fields page");

    // A skill tag for Galaxy; the same name again is refused at the field.
    await page.getByLabel("Tag", { exact: true }).fill("shield");
    await page.getByLabel("Game").first().selectOption({ label: "Galaxy" });
    await page.getByLabel("Description (optional)").first().fill("Shield bugs");
    await page.getByLabel("A skill agents can have").check();
    await page.getByRole("button", { name: "Create the tag" }).click();
    await page.getByText("The tag “shield” is created.").waitFor();
    await expect.poll(() => tagRows(page).count()).toBe(1);
    expect(await tagRows(page).first().textContent()).toContain("Galaxy");
    expect(await tagRows(page).first().textContent()).toContain("Skill");
    await page.getByLabel("Tag", { exact: true }).fill("shield");
    await page.getByLabel("Game").first().selectOption({ label: "Galaxy" });
    await page.getByRole("button", { name: "Create the tag" }).click();
    await page.getByText("A live tag of this name exists for these games already.").waitFor();
    await screenshot(page, "141-settings-tag-created-and-duplicate-refused");

    // Change its description; the name stays.
    await tagRows(page).first().getByRole("button", { name: "Edit shield" }).click();
    await page.getByText("The name “shield” and the game (Galaxy) stay", { exact: false }).waitFor();
    await page.getByLabel("Description (optional)").first().fill("Shield and armour bugs");
    await page.getByRole("button", { name: "Save the tag" }).click();
    await page.getByText("The tag “shield” is saved.").waitFor();
    await expect.poll(() => tagRows(page).first().textContent()).toContain("Shield and armour bugs");

    // A dropdown field; its options one per line.
    await page.getByLabel("Key").fill("platform");
    await page.getByLabel("Type").selectOption({ label: "Dropdown" });
    await page.getByLabel("Name", { exact: true }).fill("Platform");
    await page.getByLabel("Options").fill("PC\nSwitch");
    await page.getByRole("button", { name: "Create the field" }).click();
    await page.getByText("The field “Platform” is created.").waitFor();
    await expect.poll(() => fieldRows(page).count()).toBe(1);
    await fieldRows(page).first().getByRole("button", { name: "Edit Platform" }).click();
    await page.getByLabel("Options").fill("PC\nSwitch\nMobile");
    await page.getByRole("button", { name: "Save the field" }).click();
    await page.getByText("The field “Platform” is saved.").waitFor();
    await expect.poll(() => fieldRows(page).first().textContent()).toContain("PC, Switch, Mobile");
    await screenshot(page, "142-settings-tag-and-field");
    await expectAccessible(page, "the tags and fields page with a tag and a field");

    // On a ticket: the tag is offered, the field has its options.
    const ticketId = await createTicket();
    await page.goto(`${base}/app/tickets/${ticketId}`);
    await page.getByLabel("Add a tag").selectOption("shield");
    await expect.poll(async () => ((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: { tags: string[] }[] }).tickets[0]?.tags).toEqual(["shield"]);
    await page.getByLabel("Platform").selectOption("Switch");
    await page.getByRole("button", { name: "Save the fields" }).click();
    await expect.poll(async () => ((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: { fields: Record<string, unknown> }[] }).tickets[0]?.fields).toEqual({ platform: "Switch" });
    await screenshot(page, "143-ticket-with-the-new-tag-and-field");

    // Retire both (a second click confirms).
    await page.goto(`${base}/app/settings/tags-and-fields`);
    await tagRows(page).first().getByRole("button", { name: "Retire shield" }).click();
    await tagRows(page).first().getByRole("button", { name: "Retire shield now" }).click();
    await page.getByText("The tag “shield” is retired. Tickets that have it keep it.").waitFor();
    await fieldRows(page).first().getByRole("button", { name: "Retire Platform" }).click();
    await screenshot(page, "144-settings-field-retire-confirm");
    await fieldRows(page).first().getByRole("button", { name: "Retire Platform now" }).click();
    await page.getByText("The field “Platform” is retired. Tickets keep their values.").waitFor();
    await page.getByText("The company has no custom fields yet.").waitFor();
    await screenshot(page, "145-settings-tag-and-field-retired");

    // The ticket keeps the tag and shows the field's value, read only.
    await page.goto(`${base}/app/tickets/${ticketId}`);
    await page.getByRole("heading", { name: "Retired fields" }).waitFor();
    expect(await page.getByRole("heading", { name: "Retired fields" }).locator("xpath=following-sibling::dl[1]").textContent()).toBe("platformSwitch");
    expect(await page.getByRole("heading", { name: "Tags" }).locator("..").textContent()).toContain("shield");
    await screenshot(page, "146-ticket-keeps-retired-tag-and-field");
    await expectAccessible(page, "a ticket with a retired tag and field");

    // The audit log has every change, by Bea.
    await page.goto(`${base}/app/settings/audit-log`);
    const rows = page.locator(".audit-table tbody tr");
    await rows.first().waitFor();
    const texts = (await rows.allTextContents()).slice(0, 6);
    expect(texts.map((text) => /(Tag|Field) (created|changed|retired)/.exec(text)?.[0])).toEqual(["Field retired", "Tag retired", "Field changed", "Field created", "Tag changed", "Tag created"]);
    expect(texts.every((text) => text.includes("Bea Keys"))).toBe(true);
    expect(texts[2]).toContain("Options: PC, Switch → PC, Switch, Mobile");
    await screenshot(page, "147-settings-audit-log-tags-and-fields");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("creates a tag by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/tags-and-fields`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const focusOn = (label: string) => tabTo(page, label);
    await focusOn("Tag");
    await page.keyboard.type("crash");
    await focusOn("A skill agents can have");
    await page.keyboard.press("Space");
    await focusOn("Create the tag");
    await page.keyboard.press("Enter");
    await page.getByText("The tag “crash” is created.").waitFor();
    await expect.poll(async () => (await tagRows(page).allTextContents()).some((text) => text.includes("crash") && text.includes("All games") && text.includes("Skill"))).toBe(true);
    await screenshot(page, "148-settings-tag-by-keyboard");
    expect(problems).toEqual([]);
    await context.close();
  });
});
