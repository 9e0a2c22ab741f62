// Settings → Webhooks in headless Chromium over the real stack: an admin subscribes a local
// webhook receiver (the test stack allows http and private targets), keeps the secret shown once,
// sends a test event and finds it in the delivery log with the receiver's answer (its status and
// the start of its body), filters the log, sends the delivery again, gives the subscription a new
// secret, changes it, enables again one the service stopped (its reason shown) and deletes one;
// the audit log page shows every change, by the admin. A subscription made and tested by keyboard
// alone. axe on every page, screenshots 220-239 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createPool } from "@support/db";
import { startStack, type Stack } from "@support/gateway/test-stack";
import { freePort, startWebhookReceiver, type WebhookReceiver } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const ANSWER = "thanks, got it (receiver 7)";

describe("Settings → Webhooks in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const wes = `wes-${suffix}@hooks.example`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    await stack.applyTenant({
      company: { name: "Hooks Studio" },
      games: [
        { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
        { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
      ],
      users: [{ ref: "wes", name: "Wes Hooks", email: wes, role: "admin" }],
    });
    await stack.admin(["users", "set-password", "--email", wes], `${PASSWORD}\n`);
    receiver = await startWebhookReceiver({ status: 200, body: ANSWER });
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await stack?.stop();
  });

  const rowOf = (page: Page, url: string) => page.locator(".webhooks-table tbody tr", { has: page.locator(".webhook-url", { hasText: url }) });
  const logRows = (page: Page) => page.locator(".delivery-table tbody tr");
  // The subscription also asked for audit.recorded: the audit entries of these very changes come
  // to the receiver too (content publishes them), so the test event is found by its type.
  const testEvents = () => receiver.bodies().filter((body) => (body as { type?: string }).type === "webhook.test").length;
  const testRow = (page: Page) => logRows(page).filter({ has: page.locator("th", { hasText: "webhook.test" }) });
  const secretShown = async (page: Page) => {
    await page.locator("#webhook-secret").waitFor();
    return page.locator("#webhook-secret").inputValue();
  };

  it("subscribes the receiver, tests it, reads the log, sends again, rotates the secret, changes and deletes; the audit log shows it all", async () => {
    // The ftp:// URL below is refused on purpose.
    const { context, page, problems } = await signedInPage(browser, base, wes, PASSWORD, { expected: ["400 /agent-api/settings/webhooks"] });
    await page.goto(`${base}/app/settings/webhooks`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Webhooks");
    await page.getByText("No subscriptions yet.").waitFor();
    await expect.poll(() => page.locator(".webhook-form .choice").count()).toBe(2);
    await screenshot(page, "220-settings-webhooks-empty");
    await expectAccessible(page, "the empty webhooks page");

    // Nothing chosen: the form says what is missing, without asking the API.
    await page.getByRole("button", { name: "Subscribe", exact: true }).click();
    await page.getByText("Enter the address the events are sent to.").waitFor();
    await page.getByText("Choose at least one event.").first().waitFor();
    // A URL the service refuses: its reason at the field.
    await page.getByLabel("URL", { exact: true }).fill("ftp://files.example.com/drop");
    await page.getByRole("checkbox", { name: "ticket.created", exact: true }).check();
    await page.getByRole("button", { name: "Subscribe", exact: true }).click();
    await page.locator("#webhook-url-error", { hasText: "This URL cannot be used" }).waitFor();
    await screenshot(page, "221-settings-webhooks-refused-url");
    await expectAccessible(page, "the webhook form with errors");

    await page.getByLabel("URL", { exact: true }).fill(receiver.url);
    await page.getByLabel("Description").fill("Live-ops dashboard");
    await page.getByRole("checkbox", { name: "audit.recorded", exact: true }).check();
    await page.getByRole("checkbox", { name: "Galaxy", exact: true }).check();
    await page.getByRole("button", { name: "Subscribe", exact: true }).click();
    const secret = await secretShown(page);
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("heading", { name: `Signing secret of ${receiver.url}` }).waitFor();
    await screenshot(page, "222-settings-webhooks-secret-once");
    await expectAccessible(page, "the new webhook's secret");
    await page.getByRole("button", { name: "I have stored the secret" }).click();
    await page.locator("#webhook-secret").waitFor({ state: "detached" });
    expect(await page.content()).not.toContain(secret);
    const row = rowOf(page, receiver.url);
    await row.waitFor();
    expect(await row.textContent()).toContain("Live-ops dashboard");
    expect(await row.textContent()).toContain("Galaxy");
    expect(await row.textContent()).toContain("Sending");

    // A test event: the receiver gets it, and the log shows the receiver's answer.
    await page.getByRole("button", { name: `Send a test event to ${receiver.url}` }).click();
    await page.getByText(`A test event is on its way to ${receiver.url}`).waitFor();
    await expect.poll(testEvents, { timeout: 30_000 }).toBe(1);
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Reload" }).click();
          return (await testRow(page).first().textContent({ timeout: 2_000 }).catch(() => "")) ?? "";
        },
        { timeout: 30_000 },
      )
      .toContain("Delivered");
    const logged = (await testRow(page).textContent()) ?? "";
    expect(logged).toContain("webhook.test");
    expect(logged).toContain("HTTP 200");
    expect(logged).toContain(ANSWER);
    await screenshot(page, "223-settings-webhooks-delivery-log");
    await expectAccessible(page, "the delivery log");

    // Filters: no failed delivery; the delivered one under "Delivered".
    await page.getByLabel("Status", { exact: true }).selectOption({ label: "Failed" });
    await page.getByText("No deliveries in this status.").waitFor();
    await page.getByLabel("Status", { exact: true }).selectOption({ label: "Delivered" });
    await testRow(page).waitFor();
    await expect.poll(async () => (await logRows(page).allTextContents()).every((text) => text.includes("Delivered"))).toBe(true);
    await expect.poll(async () => (await logRows(page).allTextContents()).some((text) => text.includes("audit.recorded"))).toBe(true);
    await screenshot(page, "224-settings-webhooks-log-filtered");
    await page.getByLabel("Status", { exact: true }).selectOption({ label: "Any status" });

    // Send the delivery again: a second attempt, a second request to the receiver.
    const before = testEvents();
    await testRow(page).getByRole("button", { name: "Send again" }).click();
    await page.getByText("The webhook.test event is sent again now.").waitFor();
    await expect.poll(testEvents, { timeout: 30_000 }).toBe(before + 1);
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Reload" }).click();
          return testRow(page).locator("td").nth(1).textContent({ timeout: 2_000 }).catch(() => "");
        },
        { timeout: 30_000 },
      )
      .toBe("2");
    await screenshot(page, "225-settings-webhooks-sent-again");

    // A new secret, shown once; the previous one works for 24 hours.
    await page.getByRole("button", { name: `New secret for ${receiver.url}` }).click();
    const rotated = await secretShown(page);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole("heading", { name: `New signing secret of ${receiver.url}` }).waitFor();
    await screenshot(page, "226-settings-webhooks-new-secret");
    await expectAccessible(page, "the rotated secret");
    await page.getByRole("button", { name: "I have stored the secret" }).click();
    await expect.poll(async () => (await rowOf(page, receiver.url).textContent()) ?? "").toContain("The previous secret works until");

    // Change it: another description, no audit events, every game.
    await page.getByRole("button", { name: `Change the subscription of ${receiver.url}` }).click();
    await page.getByRole("heading", { name: `Change the subscription of ${receiver.url}`, level: 2 }).waitFor();
    expect(await page.getByRole("checkbox", { name: "audit.recorded", exact: true }).isChecked()).toBe(true);
    await page.getByLabel("Description").fill("Ops feed");
    await page.getByRole("checkbox", { name: "audit.recorded", exact: true }).uncheck();
    await page.getByRole("checkbox", { name: "Galaxy", exact: true }).uncheck();
    await screenshot(page, "227-settings-webhooks-editing");
    await expectAccessible(page, "a webhook being changed");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText(`The subscription of ${receiver.url} is saved.`).waitFor();
    await expect.poll(async () => (await rowOf(page, receiver.url).textContent()) ?? "").toContain("Ops feed");
    expect(await rowOf(page, receiver.url).textContent()).toContain("All games");
    expect(await rowOf(page, receiver.url).textContent()).not.toContain("audit.recorded");

    // A subscription the service stopped (failing for days; set here in its table): its reason, and "send again".
    const other = `${receiver.url}?stopped=1`;
    await page.getByLabel("URL", { exact: true }).fill(other);
    await page.getByRole("checkbox", { name: "ticket.closed", exact: true }).check();
    await page.getByRole("button", { name: "Subscribe", exact: true }).click();
    await secretShown(page);
    await page.getByRole("button", { name: "I have stored the secret" }).click();
    const pool = createPool({ url: stack.infra.databaseUrl, schema: "webhooks", maxConnections: 1 });
    try {
      await pool.query("update webhooks set enabled = false, disabled_reason = $1 where url = $2", ["every delivery failed for 120 hours (last: HTTP 503)", other]);
    } finally {
      await pool.end();
    }
    await page.reload();
    await rowOf(page, other).getByText("Reason: every delivery failed for 120 hours (last: HTTP 503)").waitFor();
    await screenshot(page, "228-settings-webhooks-stopped");
    await expectAccessible(page, "a stopped webhook");
    await page.getByRole("button", { name: `Send again to ${other}` }).click();
    await page.getByText(`${other} gets events again.`).waitFor();
    await expect.poll(async () => (await rowOf(page, other).textContent()) ?? "").toContain("Sending");

    // Delete: the second click confirms.
    await page.getByRole("button", { name: `Delete the subscription of ${other}` }).click();
    await screenshot(page, "229-settings-webhooks-confirm-delete");
    await page.getByRole("button", { name: `Really delete the subscription of ${other}, with its delivery log` }).click();
    await page.getByText(`The subscription of ${other} is deleted.`).waitFor();
    await expect.poll(() => rowOf(page, other).count()).toBe(0);
    await screenshot(page, "230-settings-webhooks-after-changes");

    // The audit log: every change, by Wes (content records what the webhooks service hands over).
    await page.goto(`${base}/app/settings/audit-log`);
    await page.getByLabel("Kind").selectOption({ label: "Webhooks" });
    const expected = [
      "Webhook deleted", "Webhook changed", "Webhook subscribed", "Webhook changed", "Webhook secret renewed", "Webhook delivery sent again", "Webhook test event sent", "Webhook subscribed",
    ];
    const rows = page.locator(".audit-table tbody tr");
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByLabel("Kind").selectOption({ label: "Webhooks" });
          await rows.first().waitFor({ timeout: 5_000 }).catch(() => undefined);
          // The action's words: the first text of the "What" cell (the subscription's URL follows).
          return rows.evaluateAll((found) => found.map((row) => row.children[2]?.firstChild?.textContent ?? ""));
        },
        { timeout: 30_000 },
      )
      .toEqual(expected);
    const texts = await rows.allTextContents();
    expect(texts.every((text) => text.includes("Wes Hooks"))).toBe(true);
    expect(texts.some((text) => text.includes("Description: Live-ops dashboard → Ops feed"))).toBe(true);
    expect(texts.join("\n")).not.toContain("whsec_");
    await screenshot(page, "231-settings-audit-log-webhooks");
    await expectAccessible(page, "the audit log with the webhook changes");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("subscribes and tests a URL by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, wes, PASSWORD);
    await page.goto(`${base}/app/settings/webhooks`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const url = `${receiver.url}?keyboard=1`;
    await tabTo(page, "URL");
    await page.keyboard.type(url);
    await tabTo(page, "player.deleted");
    await page.keyboard.press("Space");
    await tabTo(page, "Farm");
    await page.keyboard.press("Space");
    await tabTo(page, "Subscribe");
    await page.keyboard.press("Enter");
    await secretShown(page);
    // The secret is selected for copying: the focus is in its field.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("webhook-secret");
    await screenshot(page, "232-settings-webhooks-keyboard-secret");
    await tabTo(page, "I have stored the secret");
    await page.keyboard.press("Enter");
    await rowOf(page, url).waitFor();
    expect(await rowOf(page, url).textContent()).toContain("Farm");
    const before = testEvents();
    await tabTo(page, `Send a test event to ${url}`);
    await page.keyboard.press("Enter");
    await expect.poll(testEvents, { timeout: 30_000 }).toBe(before + 1);
    await page.locator("#delivery-log-title").waitFor();
    await tabTo(page, "Status");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.getByLabel("Status", { exact: true }).inputValue()).not.toBe("");
    await screenshot(page, "233-settings-webhooks-keyboard-log");
    await expectAccessible(page, "the keyboard user's delivery log");
    await tabTo(page, `Delete the subscription of ${url}`, 120);
    await page.keyboard.press("Enter");
    // The second click's button takes the focus: Enter again confirms.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")).toBe(`Really delete the subscription of ${url}, with its delivery log`);
    await page.keyboard.press("Enter");
    await expect.poll(() => rowOf(page, url).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
