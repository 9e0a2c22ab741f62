// Settings → Team in headless Chromium over the real stack: an admin invites an agent, who opens
// the mailed link, chooses a password and signs in; the admin sees them signed in now, changes
// their games, deactivates them (their next request is refused) and resets another user's
// two-factor; the audit log shows each change with the admin as actor. The last admin cannot
// change their own role. Then invite, re-invite and deactivate by keyboard alone, and an agent
// is told the page is for admins. axe on every page, a screenshot of every step (100–119) in
// .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import { TOTP } from "otpauth";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo, watchPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("the team settings in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const bea = `bea-${suffix}@team.example`;
  const cara = `cara-${suffix}@team.example`;
  const ivy = `ivy-${suffix}@team.example`;
  const kim = `kim-${suffix}@team.example`;

  /** Turns two-factor on for a user over the API, as the security page would. */
  async function enrolTwoFactor(email: string): Promise<void> {
    const origin = { origin: base };
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: origin, json: { email, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    const headers = { cookie, ...origin, "x-csrf-token": csrfToken };
    const { secret } = (await stack.request("/agent-api/two-factor/enrolment", { method: "POST", headers })).body as { secret: string };
    const confirmed = await stack.request("/agent-api/two-factor/enrolment/confirm", { method: "POST", headers, json: { code: new TOTP({ secret }).generate() } });
    expect(confirmed.status, confirmed.text).toBe(200);
  }

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Team Studio" },
      games: [
        { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"] },
        { ref: "nebula", name: "Nebula", slug: `nebula-${suffix}`, languages: ["en"] },
      ],
      users: [
        { ref: "bea", name: "Bea Keys", email: bea, role: "admin" },
        { ref: "cara", name: "Cara Crash", email: cara, role: "agent", games: ["galaxy"], skills: ["crash"] },
      ],
      tags: [{ name: "crash", game: null, isSkill: true }],
    });
    for (const email of [bea, cara]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    await enrolTwoFactor(cara);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const rowOf = (page: Page, name: string) => page.getByRole("table", { name: "People" }).locator("tbody tr").filter({ hasText: name });
  const notice = (page: Page) => page.locator(".alert.success");

  it("invites an agent who signs in from the mail, changes their games, deactivates them and resets another user's two-factor", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Team" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/settings/team`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Team");
    await rowOf(page, "Cara Crash").waitFor();
    expect(await rowOf(page, "Cara Crash").textContent()).toContain("Skills: crash");
    expect(await rowOf(page, "Bea Keys").textContent()).toContain("Signed in now");
    await screenshot(page, "100-team-list");
    await expectAccessible(page, "the team page");

    // The invitation: the form says what is missing, then the mail goes out.
    await page.getByRole("button", { name: "Send the invitation" }).click();
    await page.getByText("Enter an email address.").waitFor();
    await screenshot(page, "101-team-invite-errors");
    await expectAccessible(page, "the invitation form with errors");
    await page.getByLabel("Email", { exact: true }).fill(ivy);
    await page.getByLabel("Name", { exact: true }).fill("Ivy Invited");
    await page.getByRole("group", { name: "Games" }).getByLabel("Galaxy").check();
    await page.getByRole("button", { name: "Send the invitation" }).click();
    await notice(page).getByText(`Ivy Invited is invited: the link is on its way to ${ivy}.`).waitFor();
    await expect.poll(() => rowOf(page, "Ivy Invited").textContent()).toContain("Invited, link valid until");
    expect(await rowOf(page, "Ivy Invited").textContent()).toContain("Never");
    await screenshot(page, "102-team-invited");

    // Ivy follows the mailed link, chooses a password and signs in.
    const mail = await stack.smtp.waitForMail(ivy);
    const link = /(http\S+\/app\/welcome#token=[\w-]+)/.exec(mail.text)?.[1];
    expect(link).toBeTruthy();
    const ivyContext = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US", timezoneId: "UTC" });
    const ivyPage = await ivyContext.newPage();
    // Once deactivated, the live stream may be refused before the page is reloaded.
    const ivyProblems = watchPage(ivyPage, base, { expected: ["401 /agent-api/stream"] });
    await ivyPage.goto(link!);
    await ivyPage.getByText("Hello Ivy Invited, choose a password").waitFor();
    await ivyPage.getByLabel("New password", { exact: true }).fill(PASSWORD);
    await ivyPage.getByLabel("New password, again").fill(PASSWORD);
    await ivyPage.getByRole("button", { name: "Save the password" }).click();
    await ivyPage.getByText("Your password is set.").waitFor();
    await ivyPage.getByRole("link", { name: "Sign in" }).click();
    await ivyPage.getByLabel("Email").fill(ivy);
    await ivyPage.getByLabel("Password").fill(PASSWORD);
    await ivyPage.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => ivyPage.url()).toBe(`${base}/app/views/mine`);
    await screenshot(ivyPage, "103-team-invited-agent-signed-in");

    // Bea sees Ivy active and signed in now, and gives her the second game.
    await page.reload();
    await expect.poll(() => rowOf(page, "Ivy Invited").textContent()).toContain("Signed in now");
    expect(await rowOf(page, "Ivy Invited").textContent()).toContain("Active");
    await screenshot(page, "104-team-agent-signed-in-now");
    await rowOf(page, "Ivy Invited").getByRole("button", { name: "Change Ivy Invited" }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Change Ivy Invited");
    await page.getByRole("group", { name: "Games" }).getByLabel("Nebula").check();
    await screenshot(page, "105-team-change-games");
    await expectAccessible(page, "the change form");
    await page.getByRole("button", { name: "Save" }).click();
    await notice(page).getByText("The changes to Ivy Invited are saved.").waitFor();
    await expect.poll(() => rowOf(page, "Ivy Invited").textContent()).toContain("Galaxy, Nebula");
    await screenshot(page, "106-team-games-changed");

    // The last admin cannot change their own role: the form says so.
    await rowOf(page, "Bea Keys").getByRole("button", { name: "Change Bea Keys" }).click();
    expect(await page.getByLabel("Role").isDisabled()).toBe(true);
    await page.getByText("You cannot change your own role: another admin can.").waitFor();
    expect(await rowOf(page, "Bea Keys").getByRole("button", { name: "Deactivate Bea Keys" }).count()).toBe(0);
    await screenshot(page, "107-team-own-role");
    await page.getByRole("button", { name: "Cancel" }).click();

    // Deactivate: the first click asks, the second deactivates; Ivy's next request is refused.
    await rowOf(page, "Ivy Invited").getByRole("button", { name: "Deactivate Ivy Invited" }).click();
    await screenshot(page, "108-team-deactivate-confirm");
    await rowOf(page, "Ivy Invited").getByRole("button", { name: "Deactivate Ivy Invited now: they are signed out at once" }).click();
    await notice(page).getByText("Ivy Invited is deactivated: they are signed out and cannot sign in any more.").waitFor();
    await expect.poll(() => rowOf(page, "Ivy Invited").textContent()).toContain("Deactivated");
    expect(await rowOf(page, "Ivy Invited").textContent()).not.toContain("Signed in now");
    await screenshot(page, "109-team-deactivated");
    await expectAccessible(page, "a deactivated user");
    await expect.poll(async () => (await ivyPage.reload(), ivyPage.url()), { timeout: 10_000 }).toMatch(new RegExp(`^${base}/app/sign-in`));
    await screenshot(ivyPage, "110-team-deactivated-agent-signed-out");
    expect(ivyProblems).toEqual([]);
    await ivyContext.close();

    // Reset Cara's two-factor: a second click confirms.
    expect(await rowOf(page, "Cara Crash").locator("td").nth(2).textContent()).toBe("On");
    await rowOf(page, "Cara Crash").getByRole("button", { name: "Reset two-factor of Cara Crash" }).click();
    await rowOf(page, "Cara Crash").getByRole("button", { name: "Reset two-factor of Cara Crash now: they are signed out and set it up again" }).click();
    await notice(page).getByText("Two-factor of Cara Crash is reset", { exact: false }).waitFor();
    await expect.poll(() => rowOf(page, "Cara Crash").locator("td").nth(2).textContent()).toBe("Off");
    await screenshot(page, "111-team-two-factor-reset");

    // The audit log: each change, by Bea.
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/settings/audit-log`);
    await page.getByLabel("Kind").selectOption({ label: "Users" });
    const rows = page.locator(".audit-table tbody tr");
    await expect.poll(async () => (await rows.allTextContents()).join("\n")).toContain("User deactivated");
    const texts = await rows.allTextContents();
    expect(texts.find((text) => text.includes("User deactivated"))).toContain("Bea Keys");
    expect(texts.find((text) => text.includes("User deactivated"))).toContain("Active: Yes → No");
    expect(texts.find((text) => text.includes("User changed"))).toContain("Games: Galaxy → Galaxy, Nebula");
    expect(texts.filter((text) => text.includes("User invited") && text.includes("Bea Keys"))).toHaveLength(1);
    await screenshot(page, "112-team-audit-log");
    await expectAccessible(page, "the audit log of the team's changes");
    await page.getByLabel("Kind").selectOption({ label: "Two-factor" });
    await expect.poll(async () => (await rows.allTextContents()).join("\n")).toContain("Two-factor reset");
    expect((await rows.allTextContents()).find((text) => text.includes("Two-factor reset"))).toContain("for Cara Crash");
    await screenshot(page, "113-team-audit-log-two-factor");
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it("works by keyboard alone: invite, send a new invitation, deactivate", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/team`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const focusOn = (label: string) => tabTo(page, label);
    await focusOn("Email");
    await page.keyboard.type(kim);
    await page.keyboard.press("Tab");
    await page.keyboard.type("Kim Keys");
    await focusOn("Nebula");
    await page.keyboard.press("Space");
    await focusOn("Send the invitation");
    await page.keyboard.press("Enter");
    await notice(page).getByText(`Kim Keys is invited: the link is on its way to ${kim}.`).waitFor();
    expect(await rowOf(page, "Kim Keys").textContent()).toContain("Nebula");
    const first = await stack.smtp.waitForMail(kim);
    await screenshot(page, "114-team-keyboard-invited");

    const before = stack.smtp.mails.length;
    await focusOn("Send Kim Keys a new invitation");
    await page.keyboard.press("Enter");
    await notice(page).getByText(`A new invitation is on its way to ${kim}`, { exact: false }).waitFor();
    const second = await stack.smtp.waitForMail(kim, { after: before });
    expect(second.text).not.toBe(first.text);
    const oldToken = /#token=([\w-]+)/.exec(first.text)![1]!;
    expect((await stack.request("/agent-api/links/inspect", { method: "POST", headers: { origin: base }, json: { token: oldToken } })).status).toBe(404);
    await screenshot(page, "115-team-keyboard-resent");

    await focusOn("Deactivate Kim Keys");
    await page.keyboard.press("Enter");
    await focusOn("Deactivate Kim Keys now: they are signed out at once");
    await page.keyboard.press("Enter");
    await notice(page).getByText("Kim Keys is deactivated", { exact: false }).waitFor();
    await expect.poll(() => rowOf(page, "Kim Keys").textContent()).toContain("Deactivated");
    await screenshot(page, "116-team-keyboard-deactivated");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("tells an agent the team settings are for admins, and asks the API for nothing", async () => {
    const { context, page, problems } = await signedInPage(browser, base, cara, PASSWORD);
    await page.goto(`${base}/app/settings/team`);
    await page.getByText("The settings are for the company's admins.", { exact: false }).waitFor();
    expect(await page.getByRole("table").count()).toBe(0);
    await screenshot(page, "117-team-agent-refused");
    await expectAccessible(page, "the team settings for an agent");
    expect(problems).toEqual([]);
    await context.close();
    expect(tenant.companyId).toBeTruthy();
  }, 60_000);
});
