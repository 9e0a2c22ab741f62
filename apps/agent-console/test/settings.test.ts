// The settings (admins) in headless Chromium over the real stack: an admin creates an API key
// (its secret shown once, copied with the button), calls GET /games with it, revokes it with a
// second click (403 right after), and finds both changes in the audit log with their actor,
// filters it and downloads it; the same flow by keyboard alone; an agent sees no settings and
// is told they are for admins. axe on every page, a screenshot of every step in
// .ci/out/agent-console/.
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

describe("the settings in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const bea = `bea-${suffix}@settings.example`;
  const ada = `ada-${suffix}@settings.example`;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app`, API_KEY_USE_REPORT_MS: 200 },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Settings Studio" },
      apiKeys: [{ name: "From the tenant file" }],
      games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"] }],
      users: [
        { ref: "bea", name: "Bea Keys", email: bea, role: "admin", displayName: "Bea" },
        { ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", games: ["galaxy"] },
      ],
    });
    for (const email of [bea, ada]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const keyRows = (page: Page) => page.getByRole("table", { name: "Keys" }).locator("tbody tr");

  it("creates a key that opens the API, revokes it, and shows both in the audit log", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/settings/api-keys`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("API keys");
    await expect.poll(() => keyRows(page).count()).toBe(1);
    expect(await keyRows(page).first().textContent()).toContain("Platform operator");
    await screenshot(page, "90-settings-api-keys");
    await expectAccessible(page, "the API keys page");

    // A name is required; the page says so at the field.
    await page.getByRole("button", { name: "Create the key" }).click();
    await page.getByText("Enter a name of at most 100 characters.").waitFor();
    expect(await page.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Name", { exact: true }).fill("Game backend, production");
    await page.getByLabel("Requests per minute (optional)").fill("120");
    await page.getByRole("button", { name: "Create the key" }).click();
    const secretField = page.getByLabel("The new API key");
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^psk_/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, "91-settings-api-key-created-secret-once");
    await expectAccessible(page, "a new key's secret");

    // The key works at once; its use reaches the list.
    expect((await stack.request("/games", { key: secret })).status).toBe(200);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await expect.poll(() => page.getByLabel("The new API key").count()).toBe(0);
    // The secret is not on the page any more, and never in the list.
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await expect.poll(() => keyRows(page).count()).toBe(2);
    const row = keyRows(page).filter({ hasText: "Game backend, production" });
    expect(await row.textContent()).toContain("by Bea Keys");
    expect(await row.textContent()).toContain("120 per minute");
    await expect.poll(async () => (await page.reload(), await keyRows(page).filter({ hasText: "Game backend, production" }).locator("td").nth(2).textContent()), { timeout: 10_000 }).not.toBe("Never");
    await screenshot(page, "92-settings-api-key-listed-last-used");

    // Revoke: the first click asks, the second revokes; the API refuses the key right after.
    await row.getByRole("button", { name: "Revoke Game backend, production" }).click();
    await screenshot(page, "93-settings-api-key-revoke-confirm");
    await row.getByRole("button", { name: "Revoke Game backend, production now: it stops working at once" }).click();
    await page.getByText("“Game backend, production” is revoked: requests with it are refused from now on.").waitFor();
    expect((await stack.request("/games", { key: secret })).status).toBe(403);
    await expect.poll(() => keyRows(page).last().textContent()).toContain("Revoked");
    await screenshot(page, "94-settings-api-key-revoked");
    await expectAccessible(page, "a revoked key");

    // The audit log: both changes, by Bea, with what changed.
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/settings/audit-log`);
    const rows = page.locator(".audit-table tbody tr");
    await rows.first().waitFor();
    expect(await rows.first().textContent()).toContain("API key revoked");
    expect(await rows.first().textContent()).toContain("Bea Keys");
    expect(await rows.first().textContent()).toMatch(/Revoked: — → [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    expect(await rows.nth(1).textContent()).toContain("API key created");
    expect(await page.locator(".audit-table").textContent()).toContain("Tenant file applied");
    await screenshot(page, "95-settings-audit-log");
    await expectAccessible(page, "the audit log");

    // Filtered to API keys: only their entries; the download carries the same filter.
    await page.getByLabel("Kind").selectOption({ label: "API keys" });
    // Polled as a whole: while the filtered page loads there are no rows, and "every row" holds for none.
    await expect.poll(async () => (await rows.allTextContents()).map((text) => /API key (created|revoked)/.exec(text)?.[0])).toEqual(["API key revoked", "API key created"]);
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Download CSV" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await (await file.createReadStream()).toArray();
    const lines = Buffer.concat(csv).toString("utf8").trimEnd().split("\r\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("api_key.revoked");
    await screenshot(page, "96-settings-audit-log-filtered");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("works by keyboard alone: create and revoke a key", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/api-keys`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const focusOn = (label: string) => tabTo(page, label);
    await focusOn("Name");
    await page.keyboard.type("Keyboard key");
    await page.keyboard.press("Enter");
    await page.getByLabel("The new API key").waitFor();
    const secret = await page.getByLabel("The new API key").inputValue();
    // The secret's field has the focus, selected for copying.
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).id)).toBe("new-secret");
    await screenshot(page, "97-settings-keyboard-secret");
    await focusOn("I have stored it");
    await page.keyboard.press("Enter");
    await focusOn("Revoke Keyboard key");
    await page.keyboard.press("Enter");
    await focusOn("Revoke Keyboard key now: it stops working at once");
    await page.keyboard.press("Enter");
    await page.getByText("“Keyboard key” is revoked: requests with it are refused from now on.").waitFor();
    expect((await stack.request("/games", { key: secret })).status).toBe(403);
    await screenshot(page, "98-settings-keyboard-revoked");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows an agent no settings, and tells them the pages are for admins", async () => {
    const { context, page, problems } = await signedInPage(browser, base, ada, PASSWORD, { expected: [] });
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).count()).toBe(0);
    await page.goto(`${base}/app/settings/api-keys`);
    await page.getByText("The settings are for the company's admins.", { exact: false }).waitFor();
    expect(await page.getByRole("table").count()).toBe(0);
    await screenshot(page, "99-settings-agent-refused");
    await expectAccessible(page, "the settings for an agent");
    // The page asked for nothing an agent may not read.
    expect(problems).toEqual([]);
    await context.close();
    expect(tenant.companyId).toBeTruthy();
  });
});
