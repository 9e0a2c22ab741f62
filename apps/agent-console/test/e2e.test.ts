// The support application end to end in headless Chromium, served by the real gateway in front
// of the whole backend (the gateway's test stack, with a real SMTP receiver): signing in with a
// password after a wrong one and landing where the user was going, two-factor enrolment with
// the QR code's secret and a sign-in with a recovery code, an invitation mailed and used once,
// a forgotten password, single sign-on through a real OpenID provider (and its refusals),
// signing out everywhere, the whole sign-in by keyboard alone, and the German catalog. axe-core checks every page; any script error, CSP violation or request to
// another host fails; a screenshot of every step goes to .ci/out/agent-console/.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startOpenIdProvider, type TestOpenIdProvider } from "@support/gateway/test-openid-provider";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import { TOTP } from "otpauth";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, watchPage, type WatchOptions } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("the support application in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@studio.example`;
  const bea = `bea-${suffix}@studio.example`;
  const ssoDomain = `sso-${suffix}.example`;
  const cleo = `cleo@${ssoDomain}`;
  let provider: TestOpenIdProvider;
  let secrets: string;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The company's OpenID provider, and its client secret where content reads it (the mounted Secret).
    const clientSecret = `secret-${randomUUID()}`;
    provider = await startOpenIdProvider({ redirectUri: `${base}/agent-api/sso/callback`, clientSecret });
    secrets = await mkdtemp(join(tmpdir(), "console-sso-"));
    await writeFile(join(secrets, "console-provider"), clientSecret, { mode: 0o600 });
    // The application's address: the gateway's /app, where invitation links also lead.
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app`, SSO_CLIENTS_DIR: secrets },
    });
    tenant = await stack.applyTenant({
      company: { name: "Console Studio" },
      games: [{ ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en"] }],
      users: [
        { ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["galaxy"], skills: ["crash", "billing"] },
        { ref: "bea", name: "Bea Keys", email: bea, role: "admin", displayName: "Bea" },
      ],
      tags: [{ name: "billing", game: null, isSkill: true }, { name: "crash", game: "galaxy", isSkill: true }],
    });
    await stack.applyTenant({
      company: { name: "Console SSO Studio", singleSignOn: { issuer: provider.issuer, clientId: provider.clientId, clientSecretKey: "console-provider", emailDomains: [ssoDomain] } },
      games: [{ ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en"] }],
      users: [{ ref: "cleo", name: "Cleo Single", email: cleo, role: "agent", displayName: "Cleo", games: ["galaxy"] }],
    });
    provider.accounts.set("cleo", { email: cleo, email_verified: true, name: "Cleo Single" });
    await stack.admin(["users", "set-password", "--email", ada], `${PASSWORD}\n`);
    await stack.admin(["users", "set-password", "--email", bea], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await provider?.stop();
    if (secrets) await rm(secrets, { recursive: true, force: true });
  });

  /** A fresh browser context; `expected` lists answers (`401 /agent-api/me`) that are part of the flow. */
  async function newPage(options: WatchOptions & { locale?: string } = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: options.locale ?? "en-US" });
    const page = await context.newPage();
    return { context, page, problems: watchPage(page, base, options) };
  }

  async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  const heading = (page: Page) => page.getByRole("heading", { level: 1 });
  /** The value of one row of the account page's facts, by its label. */
  const fact = (page: Page, label: string) => page.locator(".facts dt", { hasText: label }).locator("xpath=following-sibling::dd[1]").textContent();

  it("sends a signed-out visitor to sign-in, refuses a wrong password with one message, and lands where they were going", async () => {
    const { context, page, problems } = await newPage({ expected: ["401 /agent-api/sign-in"] });
    await page.goto(`${base}/app/account`);
    await expect.poll(() => page.url()).toBe(`${base}/app/sign-in?next=%2Faccount`);
    await expect.poll(() => heading(page).textContent()).toBe("Sign in");
    expect(await page.title()).toBe("Sign in · Player Support");
    await screenshot(page, "01-sign-in");
    await expectAccessible(page, "the sign-in page");

    await signIn(page, ada, "not the password at all");
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe("The email or password is wrong.");
    await screenshot(page, "02-sign-in-wrong-password");
    await expectAccessible(page, "the sign-in page with an error");

    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/account`);
    await expect.poll(() => heading(page).textContent()).toBe("Your account");
    const facts = await page.locator(".facts").textContent();
    expect(facts).toContain("Ada Lovelace");
    expect(facts).toContain(ada);
    expect(facts).toContain("Agent");
    expect(facts).toContain("1 game(s)");
    expect(await fact(page, "Skills")).toBe("crash, billing");
    expect(await page.getByText("Signed in as Ada").count()).toBe(1);
    // The session cookie is HttpOnly: the page's scripts never see it.
    expect(await page.evaluate(() => document.cookie)).toBe("");
    await screenshot(page, "03-account");
    await expectAccessible(page, "the account page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("enrols in two-factor with the QR code's secret, then signs in with a recovery code after a wrong code", async () => {
    const { context, page, problems } = await newPage({ expected: ["400 /agent-api/two-factor/enrolment/confirm", "401 /agent-api/sign-in/totp"] });
    await page.goto(`${base}/app/sign-in`);
    await signIn(page, bea);
    await expect.poll(() => page.url()).toBe(`${base}/app/views/mine`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Security" }).click();
    await expect.poll(() => heading(page).textContent()).toBe("Security");
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    const qr = page.getByRole("img", { name: "QR code of your two-factor key" });
    await qr.waitFor();
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    const secret = (await page.locator("code.secret").textContent())!;
    await screenshot(page, "04-two-factor-qr-code");
    await expectAccessible(page, "the enrolment step");

    const app = new TOTP({ secret });
    await page.getByLabel("Code from the app").fill("000000" === app.generate() ? "111111" : "000000");
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    await page.getByText("This code is not right.", { exact: false }).waitFor();
    await page.getByLabel("Code from the app").fill(app.generate());
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    const recoveryCode = (await codes.first().textContent())!;
    await screenshot(page, "05-two-factor-recovery-codes");
    await expectAccessible(page, "the recovery codes");
    await page.getByRole("button", { name: "I have saved them" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/account`);
    expect(await page.locator(".facts").textContent()).toContain("On");

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/sign-in`);
    await signIn(page, bea);
    await expect.poll(() => heading(page).textContent()).toBe("Two-factor sign-in");
    await screenshot(page, "06-two-factor-code-step");
    await expectAccessible(page, "the code step");
    await page.getByLabel("Code", { exact: true }).fill("123 456");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("This code is wrong or was used already.");
    await screenshot(page, "07-two-factor-wrong-code");
    await page.getByLabel("Code", { exact: true }).fill(recoveryCode);
    await page.getByRole("button", { name: "Continue" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/views/mine`);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("opens a mailed invitation, refuses a mismatch and a weak password, sets the first password once, and signs in with it", async () => {
    const ivy = `ivy-${suffix}@studio.example`;
    const invited = await stack.admin<{ link: string }>(["users", "invite", "--company", tenant.companyId, "--email", ivy, "--name", "Ivy Invited", "--games", tenant.games.galaxy!.id]);
    const mail = await stack.smtp.waitForMail(ivy);
    const link = /(http\S+\/app\/welcome#token=[\w-]+)/.exec(mail.text)?.[1];
    expect(link).toBe(invited.link);
    const { context, page, problems } = await newPage({ expected: ["400 /agent-api/links/redeem", "404 /agent-api/links/inspect"] });
    await page.goto(link!);
    await expect.poll(() => heading(page).textContent()).toBe("Welcome");
    // The token leaves the address bar (and the history) at once.
    expect(page.url()).toBe(`${base}/app/welcome`);
    expect(await page.getByText("Hello Ivy Invited, choose a password").count()).toBe(1);
    await screenshot(page, "08-invitation");
    await expectAccessible(page, "the invitation page");

    await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("New password, again").fill(`${PASSWORD}!`);
    await page.getByRole("button", { name: "Save the password" }).click();
    await page.getByText("The two passwords are not the same.").waitFor();
    await page.getByLabel("New password", { exact: true }).fill("ivyivyivy");
    await page.getByLabel("New password, again").fill("ivyivyivy");
    await page.getByRole("button", { name: "Save the password" }).click();
    await page.getByText("This password is too short or too easy to guess.", { exact: false }).waitFor();
    expect(await page.getByLabel("New password", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "09-invitation-weak-password");
    await expectAccessible(page, "the invitation page with an error");
    await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("New password, again").fill(PASSWORD);
    await page.getByRole("button", { name: "Save the password" }).click();
    await page.getByText("Your password is set.").waitFor();
    await screenshot(page, "10-invitation-done");
    await page.getByRole("link", { name: "Sign in" }).click();
    await signIn(page, ivy);
    await expect.poll(() => page.url()).toBe(`${base}/app/views/mine`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
    await page.locator(".facts").waitFor();
    expect(await page.locator(".facts").textContent()).toContain("Ivy Invited");
    expect(await fact(page, "Skills")).toBe("none");

    await page.goto(link!);
    await page.getByText("This link is unknown, was used already or has expired.").waitFor();
    await screenshot(page, "11-invitation-used");
    await expectAccessible(page, "a used link");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("mails a reset link for a forgotten password, and the new password signs in", async () => {
    const { context, page, problems } = await newPage();
    await page.goto(`${base}/app/sign-in`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await expect.poll(() => heading(page).textContent()).toBe("Reset your password");
    const before = stack.smtp.mails.length;
    await page.getByLabel("Email").fill(ada);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByText("a link is on its way", { exact: false }).waitFor();
    await screenshot(page, "12-forgot-password-sent");
    await expectAccessible(page, "the forgotten-password page");
    const mail = await stack.smtp.waitForMail(ada, { after: before });
    const link = /(http\S+\/app\/reset-password#token=[\w-]+)/.exec(mail.text)?.[1];
    await page.goto(link!);
    await expect.poll(() => heading(page).textContent()).toBe("Choose a new password");
    const renewed = `${PASSWORD} renewed`;
    await page.getByLabel("New password", { exact: true }).fill(renewed);
    await page.getByLabel("New password, again").fill(renewed);
    await page.getByRole("button", { name: "Save the password" }).click();
    await page.getByText("Your password is set.").waitFor();
    await page.getByRole("link", { name: "Sign in" }).click();
    await signIn(page, ada, renewed);
    await expect.poll(() => page.url()).toBe(`${base}/app/views/mine`);
    await stack.applyTenant({
      company: { name: "Console SSO Studio", singleSignOn: { issuer: provider.issuer, clientId: provider.clientId, clientSecretKey: "console-provider", emailDomains: [ssoDomain] } },
      games: [{ ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en"] }],
      users: [{ ref: "cleo", name: "Cleo Single", email: cleo, role: "agent", displayName: "Cleo", games: ["galaxy"] }],
    });
    provider.accounts.set("cleo", { email: cleo, email_verified: true, name: "Cleo Single" });
    await stack.admin(["users", "set-password", "--email", ada], `${PASSWORD}\n`);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("signs in with the company's account through its OpenID provider, and says why when it cannot", async () => {
    // The browser goes to the provider only through the sign-in's own navigation.
    const { context, page, problems } = await newPage({ otherOrigins: [provider.issuer], expected: ["404 /agent-api/sso/start"] });
    await page.goto(`${base}/app/sign-in?next=%2Faccount`);
    await page.getByRole("button", { name: "Sign in with your company's account" }).click();
    expect(await page.getByRole("alert").textContent()).toBe("Enter your work email first: it tells us your company.");
    await page.getByLabel("Email").fill(`someone@nowhere-${suffix}.example`);
    await page.getByRole("button", { name: "Sign in with your company's account" }).click();
    await page.getByText("Single sign-on is not set up for this email's company.", { exact: false }).waitFor();
    await screenshot(page, "15-sso-not-set-up");

    provider.nextLogin({ accountId: "cleo" });
    await page.getByLabel("Email").fill(cleo);
    await page.getByRole("button", { name: "Sign in with your company's account" }).click();
    await expect.poll(() => page.url(), { timeout: 15_000 }).toBe(`${base}/app/account`);
    expect(await page.locator(".facts").textContent()).toContain("Cleo Single");
    await screenshot(page, "16-sso-signed-in");

    // A refusal comes back to the sign-in page with a code the page explains.
    await page.goto(`${base}/app/sign-in?error=sso_refused`);
    expect(await page.getByRole("alert").textContent()).toBe("There is no account for you here. Ask your administrator to invite you.");
    await screenshot(page, "17-sso-refused");
    await expectAccessible(page, "the sign-in page after a refused single sign-on");
    // A user with two-factor on whose provider asserted none comes back for the code.
    await page.goto(`${base}/app/sign-in?step=two_factor&next=%2Faccount`);
    await expect.poll(() => heading(page).textContent()).toBe("Two-factor sign-in");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("signs in by keyboard alone and signs out everywhere, which ends the session in another browser", async () => {
    const { context, page, problems } = await newPage();
    await page.goto(`${base}/app/sign-in`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("email");
    await page.keyboard.type(ada);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toBe(`${base}/app/views/mine`);
    // The heading has the focus after the page changed, so a screen reader announces it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");

    const other = await newPage();
    await other.page.goto(`${base}/app/sign-in`);
    await signIn(other.page, ada);
    await expect.poll(() => other.page.url()).toBe(`${base}/app/views/mine`);

    // Tab to the Account link, open it, then Tab to "Sign out everywhere" and press it.
    for (let presses = 0; presses < 20; presses++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate(() => document.activeElement?.textContent)) === "Account") break;
    }
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toBe(`${base}/app/account`);
    for (let presses = 0; presses < 20; presses++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate(() => document.activeElement?.textContent)) === "Sign out everywhere") break;
    }
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toBe(`${base}/app/sign-in`);
    await screenshot(page, "13-signed-out-everywhere");
    await other.page.reload();
    await expect.poll(() => other.page.url()).toBe(`${base}/app/sign-in?next=%2Fviews%2Fmine`);
    expect([...problems, ...other.problems]).toEqual([]);
    await other.context.close();
    await context.close();
  }, 60_000);

  it("speaks German to a browser that prefers it, on the account page too", async () => {
    const { context, page, problems } = await newPage({ locale: "de-DE" });
    await page.goto(`${base}/app/sign-in?next=%2Faccount`);
    await expect.poll(() => heading(page).textContent()).toBe("Anmelden");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("de");
    expect(await page.getByRole("link", { name: "Passwort vergessen?" }).count()).toBe(1);
    await screenshot(page, "14-sign-in-german");
    await expectAccessible(page, "the German sign-in page");
    await page.getByLabel("E-Mail").fill(ada);
    await page.getByLabel("Passwort").fill(PASSWORD);
    await page.getByRole("button", { name: "Anmelden", exact: true }).click();
    await expect.poll(() => heading(page).textContent()).toBe("Dein Konto");
    expect(await fact(page, "Fähigkeiten")).toBe("crash, billing");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
