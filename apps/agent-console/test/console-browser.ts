// What the console's Chromium tests share: a screenshot per step into .ci/out/agent-console/,
// axe-core with no serious or critical violation, a watch on every page that records script
// errors, failed answers and requests to other hosts, and a signed-in agent's page. When a test
// fails, the watch prints what the page showed and its last requests (status and time taken)
// and keeps a screenshot named after the test, so that a failure seen once can be explained.
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { onTestFailed } from "vitest";

export const SCREENSHOTS = fileURLToPath(new URL("../../../.ci/out/agent-console/", import.meta.url));
mkdirSync(SCREENSHOTS, { recursive: true });

export { expectAccessible } from "@support/testkit/accessibility";

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

export interface WatchOptions {
  /** Answers that are part of the flow, as `<status> <path>`; `401 /agent-api/me` always is (how a page learns nobody is signed in). */
  expected?: string[];
  /** Origins the page may reach besides the gateway's (an OpenID provider). */
  otherOrigins?: string[];
}

/** Records script errors, answers of 400 and more that the flow did not expect, and requests to another host. */
export function watchPage(page: Page, base: string, options: WatchOptions = {}): string[] {
  const problems: string[] = [];
  const expected = new Set(["401 /agent-api/me", ...(options.expected ?? [])]);
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    const key = `${response.status()} ${new URL(response.url()).pathname}`;
    if (response.status() >= 400 && !expected.has(key)) problems.push(`${response.request().method()} ${key}`);
  });
  page.on("request", (request) => {
    const origin = new URL(request.url()).origin;
    if (!request.url().startsWith("data:") && origin !== base && !(options.otherOrigins ?? []).includes(origin)) problems.push(`third-party request: ${request.url()}`);
  });
  const recent: string[] = [];
  const started = new Map<unknown, number>();
  page.on("request", (request) => started.set(request, Date.now()));
  page.on("requestfinished", async (request) => {
    const response = await request.response().catch(() => null);
    recent.push(`${request.method()} ${new URL(request.url()).pathname} ${response?.status() ?? "?"} in ${Date.now() - (started.get(request) ?? Date.now())} ms`);
    started.delete(request);
    if (recent.length > 15) recent.shift();
  });
  page.on("requestfailed", (request) => recent.push(`${request.method()} ${new URL(request.url()).pathname} failed: ${request.failure()?.errorText ?? "?"}`));
  try {
    onTestFailed(async ({ task }) => {
      if (page.isClosed()) return;
      const shown = await page
        .locator("[role=alert], [role=status], .alert")
        .allTextContents()
        .catch(() => []);
      console.error(`the page when "${task.name}" failed: ${page.url()}\n  shown: ${JSON.stringify(shown)}\n  problems: ${JSON.stringify(problems)}\n  last requests:\n    ${recent.join("\n    ")}`);
      await screenshot(page, `failed-${task.name.replace(/[^A-Za-z0-9]+/g, "-").slice(0, 80)}`).catch(() => undefined);
    });
  } catch {
    // Outside a running test (a beforeAll's page): nothing to report on.
  }
  return problems;
}

/** A new browser context (desktop, English, UTC) with an agent signed in on the inbox. */
export async function signedInPage(browser: Browser, base: string, email: string, password: string, options: WatchOptions = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US", timezoneId: "UTC" });
  const page = await context.newPage();
  const problems = watchPage(page, base, options);
  await page.goto(`${base}/app/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  // The password hash (argon2) takes a good part of a second of CPU: on a busy machine, longer
  // than expect.poll's default second.
  await page.waitForURL(`${base}/app/views/mine`, { timeout: 15_000 });
  return { context, page, problems };
}

/**
 * Moves the focus with Tab alone until it is on the control named `label` (its aria-label, its
 * label, or its text), as a keyboard user would; fails when none comes within `steps` presses.
 */
export async function tabTo(page: Page, label: string, steps = 60): Promise<void> {
  for (let step = 0; step < steps; step += 1) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLInputElement | null;
      return element?.getAttribute("aria-label") || element?.labels?.[0]?.textContent || element?.textContent || "";
    });
    if (focused.trim() === label) return;
  }
  throw new Error(`no focusable "${label}" by Tab`);
}
