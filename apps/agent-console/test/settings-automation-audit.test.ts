// The automation settings in Settings → Audit log, in headless Chromium over the real stack: an
// admin's changes of a rule (made through the agent API, as the Rules page makes them) and of the
// outbreak settings, and a tenant file's rule, are listed with who made them (the admin by name,
// the platform operator for the file), the rule's name and what changed in words; the kind filter
// picks them by keyboard. axe on every state, screenshots 395-397 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("the automation settings in Settings → Audit log, in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ivy = `ivy-${suffix}@automation.example`;

  /** Signs a user in over the API: the cookie and CSRF token their console would have. */
  async function apiSession(email: string): Promise<Record<string, string>> {
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    return { cookie, origin: base, "x-csrf-token": csrfToken };
  }

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    await stack.applyTenant({
      company: { name: "Automation Studio", primaryLanguage: "en" },
      games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
      tags: [{ name: "refund", game: null }],
      users: [{ ref: "ivy", name: "Ivy Automation", email: ivy, role: "admin" }],
      rules: [{ name: "Greet", trigger: { type: "ticket_created" }, actions: [{ type: "sendMessage", message: "Hello!" }] }],
    });
    await stack.admin(["users", "set-password", "--email", ivy], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** The rows' kinds (the action in words), after choosing `kind` in the filter; polled until the entries are in. */
  async function kindsOf(page: Page, kind: string, expected: string[]): Promise<void> {
    const rows = page.locator(".audit-table tbody tr");
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByLabel("Kind").selectOption({ label: kind });
          await rows.first().waitFor({ timeout: 5_000 }).catch(() => undefined);
          return rows.evaluateAll((found) => found.map((row) => row.children[2]?.firstChild?.textContent ?? ""));
        },
        { timeout: 30_000 },
      )
      .toEqual(expected);
  }

  it("lists the rule and outbreak changes with who made them and what changed; the kind is chosen by keyboard", async () => {
    const session = await apiSession(ivy);
    const write = async (method: string, path: string, json: unknown) => {
      const response = await stack.request(path, { method, headers: session, json });
      expect(response.status, response.text).toBeLessThan(300);
      return response.body as { id: string };
    };
    const rule = await write("POST", "/agent-api/settings/rules", { name: "Refunds", trigger: { type: "ticket_created" }, conditions: [{ type: "text", matches: "refund" }], actions: [{ type: "addTags", tagNames: ["refund"] }] });
    await write("PATCH", `/agent-api/settings/rules/${rule.id}`, { enabled: false });
    await write("PUT", "/agent-api/settings/outbreaks", { enabled: true, minTickets: 5, windowMinutes: 30, similarity: 0.6 });

    const { context, page, problems } = await signedInPage(browser, base, ivy, PASSWORD);
    await page.goto(`${base}/app/settings/audit-log`);
    await kindsOf(page, "Rules", ["Rule changed", "Rule created", "Rule created"]);
    const rows = page.locator(".audit-table tbody tr");
    const texts = await rows.allTextContents();
    // The admin's change by name, the rule by its name, and only what changed, in words.
    expect(texts[0]).toContain("Ivy Automation");
    expect(texts[0]).toContain("“Refunds”");
    expect(texts[0]).toContain("On: Yes → No");
    expect(texts[0]).not.toContain("Trigger");
    // The tenant file's rule: by the platform operator.
    expect(texts[2]).toContain("Platform operator");
    expect(texts[2]).toContain("“Greet”");
    await screenshot(page, "395-settings-audit-log-rules");
    await expectAccessible(page, "the audit log with the rule changes");

    // The kind by keyboard: to the filter, then the outbreak settings.
    await page.locator("body").click({ position: { x: 1, y: 1 } });
    await tabTo(page, "Kind", 150);
    await page.keyboard.press("Home");
    const options = await page.getByLabel("Kind").locator("option").allTextContents();
    for (let step = 0; step < options.indexOf("Outbreak settings"); step += 1) await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.getByLabel("Kind").inputValue()).toBe("outbreaks.");
    await expect.poll(() => rows.evaluateAll((found) => found.map((row) => row.children[2]?.firstChild?.textContent ?? ""))).toEqual(["Outbreak settings changed"]);
    const outbreak = (await rows.allTextContents())[0]!;
    expect(outbreak).toContain("Detect outbreaks: No → Yes");
    expect(outbreak).toContain("Tickets that open an incident: 10 → 5");
    await screenshot(page, "396-settings-audit-log-outbreaks");
    await expectAccessible(page, "the audit log with the outbreak settings change");
    expect(problems).toEqual([]);
    await context.close();
  });
});
