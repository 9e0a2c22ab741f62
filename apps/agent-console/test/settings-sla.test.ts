// Settings → SLA in headless Chromium over the real stack (docs/automation.md, "SLA policies"): an
// admin sets the company calendar (time zone, working hours, a holiday added and one removed) and
// two policies; a target of 0 is refused by the API's schema at that target's field and
// overlapping hours by the tickets service at those hours, nothing saved; then the whole document
// is saved and read back through the agent API as it was entered (hours as minutes), the order
// changed and kept; the page links to the SLA report; an agent gets the "admins only" page. A
// policy made and saved by keyboard alone. axe on every page, screenshots 360–369 in
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

describe("Settings → SLA in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const sara = `sara-${suffix}@sla-settings.example`;
  const otto = `otto-${suffix}@sla-settings.example`;

  /** Signs a user in over the API: the cookie and CSRF token their console would have. */
  async function apiSession(email: string): Promise<Record<string, string>> {
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    return { cookie, origin: base, "x-csrf-token": csrfToken };
  }

  async function savedSettings(): Promise<{ calendar: unknown; policies: { id: string }[]; updatedAt: string | null }> {
    const response = await stack.request("/agent-api/settings/sla", { headers: await apiSession(sara) });
    expect(response.status, response.text).toBe(200);
    return response.body as { calendar: unknown; policies: { id: string }[]; updatedAt: string | null };
  }

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "SLA Settings Studio" },
      games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en"], environments: [{ ref: "arena-prod", name: "production" }] }],
      users: [
        { ref: "sara", name: "Sara Settings", email: sara, role: "admin" },
        { ref: "otto", name: "Otto Agent", email: otto, role: "agent", games: ["arena"] },
      ],
    });
    for (const email of [sara, otto]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const policy = (page: Page, index: number) => page.locator(".sla-policy").nth(index);
  const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent ?? "");

  it("sets the calendar and the policies, shows each refusal at its field, saves the whole document and keeps the order", async () => {
    // Both refusals below are on purpose.
    const { context, page, problems } = await signedInPage(browser, base, sara, PASSWORD, { expected: ["400 /agent-api/settings/sla"] });
    await page.goto(`${base}/app/settings/sla`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("SLA");
    await page.getByText("No policies yet: no ticket has SLA clocks.").waitFor();
    expect(await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "SLA", exact: true }).getAttribute("aria-current")).toBe("page");
    expect(await page.getByLabel("Time zone").count()).toBe(0);
    await screenshot(page, "360-settings-sla-empty");
    await expectAccessible(page, "the empty SLA settings");

    // The calendar: Berlin, Monday to Friday (drawn 09:00–17:00), Friday until 15:00; two holidays, one removed again.
    await page.getByLabel("Use a company calendar (working hours and holidays)").check();
    const zones = await page.getByLabel("Time zone").locator("option").allTextContents();
    expect(zones).toContain("Europe/Berlin");
    expect(zones.length).toBeGreaterThan(300);
    await page.getByLabel("Time zone").selectOption("Europe/Berlin");
    expect(await page.getByLabel("Saturday from").count()).toBe(0);
    await page.getByLabel("Friday until").fill("15:00");
    for (const date of ["2026-12-26", "2026-12-25"]) {
      await page.getByLabel("Holiday", { exact: true }).fill(date);
      await page.getByRole("button", { name: "Add the holiday" }).click();
    }
    await expect.poll(() => page.getByRole("list", { name: "Holidays" }).locator("time").allTextContents()).toEqual(["2026-12-25", "2026-12-26"]);
    await page.getByRole("button", { name: "Remove the holiday 2026-12-26" }).click();
    await expect.poll(() => page.getByRole("list", { name: "Holidays" }).locator("time").allTextContents()).toEqual(["2026-12-25"]);
    await screenshot(page, "361-settings-sla-calendar");
    await expectAccessible(page, "the SLA calendar");

    // Two policies: VIP players around the clock, Standard for Arena's billing tickets in business hours.
    await page.getByRole("button", { name: "Add a policy" }).click();
    await expect.poll(() => focusedLabel(page)).toBe("Name");
    const vip = policy(page, 0);
    await vip.getByLabel("Name").fill("VIP players");
    await vip.getByLabel("Player tiers").fill("3, 4");
    await vip.getByLabel("First response", { exact: true }).fill("30");
    await vip.getByLabel("Next response", { exact: true }).fill("1");
    await vip.getByLabel("Next response: unit").selectOption("hours");
    await vip.getByLabel("Warn before", { exact: true }).fill("10");
    await page.getByRole("button", { name: "Add a policy" }).click();
    const standard = policy(page, 1);
    await standard.getByLabel("Name").fill("Standard");
    await standard.getByLabel("Arena").check();
    await standard.getByLabel("Tags").fill("billing");
    await standard.getByLabel("First response", { exact: true }).fill("0");
    await standard.getByLabel("Resolution", { exact: true }).fill("48");
    await standard.getByLabel("Resolution: unit").selectOption("hours");
    await standard.getByLabel("Time counted").selectOption({ label: "Business hours (the company calendar)" });
    await standard.getByLabel("Pause while waiting for the player").uncheck();

    // A target of 0: the API's schema refuses it, shown at that target; nothing saved.
    await page.getByRole("button", { name: "Save the SLA settings" }).click();
    await page.getByText("Nothing was saved: 1 problem(s), shown at their fields.").waitFor();
    const firstResponse = standard.getByLabel("First response", { exact: true });
    expect(await firstResponse.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await firstResponse.getAttribute("aria-describedby"))!;
    expect(await page.locator(`#${describedBy}`).textContent()).toBe("Not accepted: must be >= 1");
    expect(await vip.locator("[aria-invalid='true']").count()).toBe(0);
    await standard.getByLabel("First response", { exact: true }).scrollIntoViewIfNeeded();
    await screenshot(page, "362-settings-sla-refused-target");
    await expectAccessible(page, "a refused SLA target");
    expect(await savedSettings()).toEqual({ calendar: null, policies: [], updatedAt: null });

    // Four hours; and a second span on Friday that overlaps the first: the tickets service refuses those hours.
    await firstResponse.fill("4");
    await standard.getByLabel("First response: unit").selectOption("hours");
    await page.getByRole("button", { name: "Add hours on Friday" }).click();
    await page.getByLabel("Friday from").nth(1).fill("14:00");
    await page.getByLabel("Friday until").nth(1).fill("18:00");
    await page.getByRole("button", { name: "Save the SLA settings" }).click();
    const overlap = page.getByText("Not accepted: overlaps the hours 09:00–15:00 of the same day");
    await overlap.waitFor();
    expect(await page.getByLabel("Friday from").nth(1).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Friday from").nth(0).getAttribute("aria-invalid")).toBe(null);
    expect(await firstResponse.getAttribute("aria-invalid")).toBe(null);
    await overlap.scrollIntoViewIfNeeded();
    await screenshot(page, "363-settings-sla-refused-hours");
    await expectAccessible(page, "refused working hours");
    expect((await savedSettings()).updatedAt).toBe(null);

    // Without the overlapping span the whole document is saved, and read back as entered.
    await page.getByRole("button", { name: "Remove the hours 14:00–18:00 on Friday" }).click();
    await page.getByRole("button", { name: "Save the SLA settings" }).click();
    await page.getByText("The SLA settings are saved (2 policy(ies)).").waitFor();
    expect(await page.locator("[aria-invalid='true']").count()).toBe(0);
    await screenshot(page, "364-settings-sla-saved");
    await expectAccessible(page, "the saved SLA settings");
    const weekday = (day: number) => ({ day, start: "09:00", end: day === 5 ? "15:00" : "17:00" });
    const saved = await savedSettings();
    expect(saved).toMatchObject({
      calendar: { timeZone: "Europe/Berlin", hours: [1, 2, 3, 4, 5].map(weekday), holidays: ["2026-12-25"] },
      policies: [
        { id: "vip-players", name: "VIP players", gameIds: [], tiers: [3, 4], tags: [], targets: { firstResponseMinutes: 30, nextResponseMinutes: 60 }, businessHours: false, pauseWhileWaiting: true, warnBeforeMinutes: 10 },
        { id: "standard", name: "Standard", gameIds: [tenant.games.arena!.id], tiers: [], tags: ["billing"], targets: { firstResponseMinutes: 240, resolutionMinutes: 2880 }, businessHours: true, pauseWhileWaiting: false, warnBeforeMinutes: 0 },
      ],
    });
    expect(saved.updatedAt).not.toBe(null);

    // Read again on reload: whole hours shown as hours, the keys made from the names.
    await page.reload();
    await policy(page, 1).waitFor();
    expect(await policy(page, 0).getByLabel("Key").inputValue()).toBe("vip-players");
    expect(await policy(page, 0).getByLabel("Next response", { exact: true }).inputValue()).toBe("1");
    expect(await policy(page, 0).getByLabel("Next response: unit").inputValue()).toBe("hours");
    expect(await policy(page, 1).getByLabel("First response", { exact: true }).inputValue()).toBe("4");
    expect(await policy(page, 1).getByLabel("Arena").isChecked()).toBe(true);
    expect(await page.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");

    // Standard moved up (the focus stays with it), saved: the API has the new order.
    await page.getByRole("button", { name: "Move up: Standard" }).click();
    await expect.poll(() => focusedLabel(page)).toBe("Move down: Standard");
    await page.getByRole("button", { name: "Save the SLA settings" }).click();
    await page.getByText("The SLA settings are saved (2 policy(ies)).").waitFor();
    expect((await savedSettings()).policies.map((item) => item.id)).toEqual(["standard", "vip-players"]);
    await page.reload();
    await expect.poll(() => page.locator(".sla-policy > fieldset > legend").allTextContents()).toEqual(["1. Standard", "2. VIP players"]);
    await screenshot(page, "365-settings-sla-reordered");

    // The report is one link away.
    await page.getByRole("link", { name: "See the SLA report: targets met and breached per week" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("SLA report");
    await screenshot(page, "366-settings-sla-report-link");
    expect(problems).toEqual([]);
    await context.close();

    // An agent gets the settings' "admins only" page, and nothing of the SLA settings.
    const agent = await signedInPage(browser, base, otto, PASSWORD);
    await agent.page.goto(`${base}/app/settings/sla`);
    await agent.page.getByText("The settings are for the company's admins.", { exact: false }).waitFor();
    expect(await agent.page.getByLabel("Time zone").count()).toBe(0);
    await screenshot(agent.page, "367-settings-sla-agent");
    expect(agent.problems).toEqual([]);
    await agent.context.close();
  }, 180_000);

  it("adds a policy and saves by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, sara, PASSWORD);
    await page.goto(`${base}/app/settings/sla`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await policy(page, 1).waitFor();
    await tabTo(page, "Add a policy", 250);
    await page.keyboard.press("Enter");
    // The new policy's name takes the focus.
    await expect.poll(() => focusedLabel(page)).toBe("Name");
    await page.keyboard.type("Keyboard policy");
    await tabTo(page, "First response");
    await page.keyboard.type("15");
    await screenshot(page, "368-settings-sla-keyboard-policy");
    await tabTo(page, "Save the SLA settings", 80);
    await page.keyboard.press("Enter");
    await page.getByText("The SLA settings are saved (3 policy(ies)).").waitFor();
    await screenshot(page, "369-settings-sla-keyboard-saved");
    await expectAccessible(page, "the keyboard user's SLA settings");
    const saved = await savedSettings();
    expect(saved.policies.map((item) => item.id)).toEqual(["standard", "vip-players", "keyboard-policy"]);
    expect(saved.policies[2]).toMatchObject({ name: "Keyboard policy", targets: { firstResponseMinutes: 15 }, businessHours: false, pauseWhileWaiting: true, warnBeforeMinutes: 0 });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
