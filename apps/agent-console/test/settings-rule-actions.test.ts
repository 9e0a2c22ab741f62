// Settings → Rules' own actions in headless Chromium over the real stack: an admin adds a rule
// that sends a canned response (picked from the company's) and calls a webhook; a URL the webhooks
// would not send to is refused at that action; the fixed rule is saved, the admin shows the
// signing secret of the webhook calls, and a new German ticket gets the German canned reply (the
// ticket view shows it as the rule's) while the local receiver gets a POST that verifies with the
// secret the page showed. The same rule made by keyboard alone. axe on every page, screenshots
// 370-379 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort, startWebhookReceiver, type WebhookReceiver } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("Settings → Rules: canned response and webhook actions in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const rita = `rita-${suffix}@rule-actions.example`;
  const canned = `Welcome ${suffix}`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    receiver = await startWebhookReceiver();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Rule Actions Studio" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
      users: [{ ref: "rita", name: "Rita Rules", email: rita, role: "admin", displayName: "Rita" }],
      tags: [{ name: "welcomed", game: null }],
    });
    await stack.admin(["users", "set-password", "--email", rita], `${PASSWORD}\n`);
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email: rita, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    const made = await stack.request("/agent-api/canned-responses", {
      method: "POST",
      headers: { cookie, origin: base, "x-csrf-token": csrfToken },
      json: { name: canned, texts: { en: "Hello {{player.name}}, we are on it.", de: "Hallo {{player.name}}, wir kümmern uns darum." }, actions: { addTags: ["welcomed"] } },
    });
    expect(made.status, made.text).toBe(201);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.stop();
  });

  const newTicket = async (player: string) => {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.galaxy!.id, message: "Mein Schiff ist weg", language: "de", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, name: player, email: `${randomUUID()}@players.example` } } },
    });
    expect(created.status, created.text).toBe(200);
    return (created.body as { ticketId: string }).ticketId;
  };

  it("adds a rule with both actions, refuses a private URL at its action, shows the secret, and runs it", async () => {
    const { context, page, problems } = await signedInPage(browser, base, rita, PASSWORD, { expected: ["400 /agent-api/settings/rules"] });
    await page.goto(`${base}/app/settings/rules`);
    await page.getByText("No rules yet.").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Welcome and notify");
    await page.getByLabel("Action", { exact: true }).selectOption({ label: "Send a canned response" });
    await page.getByLabel("Canned response").selectOption({ label: `${canned} (every game)` });
    await page.getByRole("button", { name: "Add an action" }).click();
    const second = page.locator("fieldset", { has: page.getByText("Action 2", { exact: true }) });
    await second.getByLabel("Action", { exact: true }).selectOption({ label: "Call a webhook" });
    // The cloud's metadata address: never a target, whatever the platform allows.
    await second.getByLabel("URL").fill("https://169.254.169.254/latest");
    await screenshot(page, "370-settings-rule-actions-form");
    await expectAccessible(page, "the rule form with a canned response and a webhook");

    await page.getByRole("button", { name: "Create the rule" }).click();
    await second.getByText(/^Not accepted: .*link-local|^Not accepted: .*address/).waitFor();
    expect(await second.getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "371-settings-rule-actions-url-refused");
    await expectAccessible(page, "the refused webhook URL");

    await second.getByLabel("URL").fill(receiver.url);
    await page.getByRole("button", { name: "Create the rule" }).click();
    await page.getByText("The rule Welcome and notify is saved.").waitFor();
    expect(await page.locator(".rule-summary").textContent()).toBe("A ticket is created · 0 condition(s) · Send a canned response, Call a webhook");
    await screenshot(page, "372-settings-rule-actions-saved");

    await page.getByRole("button", { name: "Show the signing secret" }).click();
    const secret = await page.getByLabel("Signing secret", { exact: true }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByText("The signing secret is shown and selected.").waitFor();
    await screenshot(page, "373-settings-rule-actions-secret");
    await expectAccessible(page, "the shown signing secret");

    // A German ticket: the German reply to the player, and a signed POST to the receiver.
    const ticketId = await newTicket("Jonas");
    await expect.poll(() => receiver.received.some((request) => request.body.includes(ticketId)), { timeout: 30_000 }).toBe(true);
    const call = receiver.received.find((request) => request.body.includes(ticketId))!;
    const body = new Webhook(secret).verify(call.body, call.headers) as { type: string; data: { ruleName: string; ticket: { id: string; tags: string[] } } };
    expect(body).toMatchObject({ type: "rule.webhook", data: { ruleName: "Welcome and notify", ticket: { id: ticketId, tags: ["welcomed"] } } });

    await page.goto(`${base}/app/tickets/${ticketId}`);
    await page.getByText("Hallo Jonas, wir kümmern uns darum.").waitFor();
    await page.getByText("Rule Welcome and notify").first().waitFor();
    await screenshot(page, "374-settings-rule-actions-ticket");
    await expectAccessible(page, "the ticket with the rule's canned reply");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("makes the same rule by keyboard alone and shows the secret", async () => {
    const { context, page, problems } = await signedInPage(browser, base, rita, PASSWORD);
    await page.goto(`${base}/app/settings/rules`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await page.locator(".rules-list").waitFor();
    await tabTo(page, "Name", 80);
    await page.keyboard.type("Keyboard actions");
    // The first action's type: "Send a canned response" is five below "Add tags".
    await tabTo(page, "Action");
    for (let step = 0; step < 5; step += 1) await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.locator("#rule-action-0-type").inputValue()).toBe("sendCannedResponse");
    // The company's canned responses are read once the form is drawn.
    await expect.poll(() => page.locator("#rule-action-0-value option").count()).toBeGreaterThan(1);
    await tabTo(page, "Canned response");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.locator("#rule-action-0-value").inputValue()).not.toBe("");
    await tabTo(page, "Add an action");
    await page.keyboard.press("Enter");
    // The new action (a private note) is before the button: back to it past the first action's Remove.
    await page.getByRole("heading", { level: 1 }).focus();
    await tabTo(page, "Remove action 1", 80);
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("rule-action-1-type");
    // "Call a webhook" is four below "Add a private note".
    for (let step = 0; step < 4; step += 1) await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.locator("#rule-action-1-type").inputValue()).toBe("callWebhook");
    await tabTo(page, "URL");
    await page.keyboard.type(receiver.url);
    await screenshot(page, "375-settings-rule-actions-keyboard-form");
    await tabTo(page, "Create the rule");
    await page.keyboard.press("Enter");
    await page.getByText("The rule Keyboard actions is saved.").waitFor();
    await page.getByRole("heading", { level: 1 }).focus();
    await tabTo(page, "Show the signing secret", 120);
    await page.keyboard.press("Enter");
    // The shown secret is selected for Ctrl+C.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("rule-secret");
    await screenshot(page, "376-settings-rule-actions-keyboard-secret");
    await expectAccessible(page, "the keyboard user's rule and secret");
    expect(problems).toEqual([]);
    await context.close();
  });
});
