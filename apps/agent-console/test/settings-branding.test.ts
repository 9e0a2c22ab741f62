// Settings → Games → Look of the support page in headless Chromium over the real stack: an admin
// sets a game's logo, accent colour and dark mode (bad input said at its field before anything is
// sent), opens the game's web support page with an environment's token and sees the logo in the
// header (served from our own origin) and the colours applied (computed styles), with no CSP
// violation and no third-party request; then the same by keyboard alone with "as the player's
// device is set" (the page follows the emulated preference), and the changes in the audit log.
// axe on every page, screenshots 180-199 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { deflateSync, crc32 } from "node:zlib";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, watchPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

/** A valid PNG: a band of `rgb` on white (8-bit RGB). */
function logoPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const rows = Array.from({ length: height }, (_, y) => {
    const inBand = y > height / 4 && y < (3 * height) / 4;
    const row = Buffer.alloc(1 + width * 3, 255);
    row[0] = 0;
    for (let x = 0; x < width; x += 1) if (inBand || x < width / 8) row.set(rgb, 1 + x * 3);
    return row;
  });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("Settings → Games → Look of the support page in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let supportBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const bo = `bo-${suffix}@brand.example`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    supportBundle = await buildBundle(fileURLToPath(new URL("../../web-support", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: {
        PORT: port,
        AGENT_CONSOLE_DIR: consoleBundle.dir,
        SUPPORT_APP_URL: `${base}/app`,
        WEB_SUPPORT_URL: `${base}/support/`,
        WEB_SUPPORT_DIR: supportBundle.dir,
      },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Aurora Studio" },
      games: [{ ref: "aurora", name: "Aurora Drift", slug: `aurora-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
      users: [{ ref: "bo", name: "Bo Brand", email: bo, role: "admin" }],
    });
    await stack.admin(["users", "set-password", "--email", bo], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const gamePath = () => `/app/settings/games/${tenant.games.aurora!.id}`;
  const brandingForm = (page: Page) => page.getByRole("form", { name: "Look of the support page" });
  const computed = (page: Page, selector: string, property: string) =>
    page.evaluate(([sel, prop]) => getComputedStyle(document.querySelector(sel!)!).getPropertyValue(prop!), [selector, property]);

  /** The support page opened from the game's page with the environment's token, watched for problems and CSP violations. */
  async function openSupport(context: BrowserContext, page: Page): Promise<{ support: Page; problems: string[] }> {
    const row = page.getByRole("table", { name: "Environments and tokens" }).locator("tbody tr").filter({ hasText: "production" });
    const [support] = await Promise.all([context.waitForEvent("page"), row.getByRole("link", { name: "Open the support page of production in a new tab" }).click()]);
    const problems = watchPage(support, base);
    await support.getByRole("heading", { level: 1, name: "Support" }).waitFor();
    // Any CSP violation of the page, whatever the console says.
    const violations = await support.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const seen: string[] = [];
          document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
          setTimeout(() => resolve(seen), 500);
        }),
    );
    problems.push(...violations);
    return { support, problems };
  }

  it("sets a logo, an accent colour and dark mode, and the game's support page shows them from our origin", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bo, PASSWORD);
    await page.goto(`${base}${gamePath()}`);
    const form = brandingForm(page);
    await form.getByText("No logo yet: the page shows the game's name only.").waitFor();
    await form.scrollIntoViewIfNeeded();
    await screenshot(page, "180-settings-branding-default");
    await expectAccessible(page, "a game's page with its look");

    // Said at the field, before anything is sent: a colour that is none, an SVG, a text file.
    await form.getByLabel("Accent colour", { exact: true }).fill("blue");
    await form.getByLabel("Logo", { exact: true }).setInputFiles({ name: "logo.svg", mimeType: "image/svg+xml", buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    await form.getByText("Choose a PNG, JPEG or WebP image (SVG is not accepted).").waitFor();
    await form.getByRole("button", { name: "Save the look" }).click();
    await form.getByText("Enter a hex colour: # and 6 (or 3) digits 0-9 or letters a-f, such as #1d4ed8.").waitFor();
    expect(await form.getByLabel("Accent colour", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await form.getByLabel("Logo", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "181-settings-branding-errors");
    await expectAccessible(page, "the look with errors");

    await form.getByLabel("Accent colour", { exact: true }).fill("#C2185B");
    await form.getByLabel("Logo", { exact: true }).setInputFiles({ name: "aurora.png", mimeType: "image/png", buffer: logoPng(160, 48, [194, 24, 91]) });
    await form.getByLabel("Dark", { exact: true }).check();
    // The preview shows the colour with the text the page will use on it.
    await expect.poll(() => computed(page, "[data-testid=branding-sample]", "background-color")).toBe("rgb(194, 24, 91)");
    expect(await computed(page, "[data-testid=branding-sample]", "color")).toBe("rgb(255, 255, 255)");
    await form.getByRole("button", { name: "Save the look" }).click();
    await form.getByText("The look of the support page is saved.").waitFor();
    await form.getByText("Now: 160×48 pixels, 1 KiB.").waitFor();
    const shown = form.getByRole("img", { name: "Logo of Aurora Drift" });
    await expect.poll(() => shown.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(160);
    expect(await form.getByLabel("Accent colour", { exact: true }).inputValue()).toBe("#c2185b");
    await screenshot(page, "182-settings-branding-saved");
    await expectAccessible(page, "the saved look");

    // The player's page: the logo in the header from our origin, the colour on its buttons, dark.
    const { support, problems: supportProblems } = await openSupport(context, page);
    const logo = support.locator("header .logo");
    await expect.poll(() => logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(160);
    const src = await logo.getAttribute("src");
    expect(src).toMatch(new RegExp(`^${base}/support/logos/${tenant.games.aurora!.id}/[0-9a-f]{64}$`));
    expect(await support.locator("header .game-name").textContent()).toBe("Aurora Drift");
    expect(await support.evaluate(() => document.documentElement.dataset.scheme)).toBe("dark");
    expect(await computed(support, "html", "--accent")).toBe("#c2185b");
    const contact = support.getByRole("link", { name: "Contact support" });
    await contact.waitFor();
    expect(await contact.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(194, 24, 91)");
    expect(await contact.evaluate((element) => getComputedStyle(element).color)).toBe("rgb(255, 255, 255)");
    expect(await computed(support, "html", "background-color")).toBe("rgb(21, 24, 29)");
    expect(await computed(support, "header.top", "border-top-color")).toBe("rgb(194, 24, 91)");
    const served = await support.request.get(src!);
    expect(served.headers()["content-type"]).toBe("image/png");
    expect(served.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
    await screenshot(support, "183-web-support-branded-dark");
    await expectAccessible(support, "the branded support page in dark mode");
    expect(supportProblems).toEqual([]);
    await support.close();
    expect(problems).toEqual([]);
    await context.close();
  });

  it("works by keyboard alone: a new colour and the player's own setting, which the page follows", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bo, PASSWORD);
    await page.goto(`${base}${gamePath()}`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await brandingForm(page).getByText("Now: 160×48 pixels, 1 KiB.").waitFor();
    const focusOn = async (label: string) => {
      for (let step = 0; step < 80; step += 1) {
        await page.keyboard.press("Tab");
        const focused = await page.evaluate(() => {
          const element = document.activeElement as HTMLInputElement | null;
          return element?.getAttribute("aria-label") || element?.labels?.[0]?.textContent || element?.textContent || "";
        });
        if (focused.trim() === label) return;
      }
      throw new Error(`no focusable "${label}" by Tab`);
    };
    await focusOn("Accent colour");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("#ffd54f");
    // The radio group: Tab reaches the checked one (Dark), the arrow moves to the next.
    await focusOn("Dark");
    await page.keyboard.press("ArrowDown");
    expect(await brandingForm(page).getByLabel("As the player's device is set", { exact: true }).isChecked()).toBe(true);
    await screenshot(page, "184-settings-branding-keyboard");
    await focusOn("Save the look");
    await page.keyboard.press("Enter");
    await brandingForm(page).getByText("The look of the support page is saved.").waitFor();
    // A light colour: the text on it is black.
    expect(await computed(page, "[data-testid=branding-sample]", "color")).toBe("rgb(0, 0, 0)");
    await screenshot(page, "185-settings-branding-keyboard-saved");
    await expectAccessible(page, "the look saved by keyboard");

    const { support, problems: supportProblems } = await openSupport(context, page);
    expect(await support.evaluate(() => document.documentElement.dataset.scheme)).toBe("system");
    const contact = support.getByRole("link", { name: "Contact support" });
    await contact.waitFor();
    expect(await contact.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(255, 213, 79)");
    expect(await contact.evaluate((element) => getComputedStyle(element).color)).toBe("rgb(0, 0, 0)");
    await support.emulateMedia({ colorScheme: "light" });
    await expect.poll(() => computed(support, "html", "background-color")).toBe("rgb(255, 255, 255)");
    await screenshot(support, "186-web-support-system-light");
    await expectAccessible(support, "the branded support page, the device light");
    await support.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => computed(support, "html", "background-color")).toBe("rgb(21, 24, 29)");
    await screenshot(support, "187-web-support-system-dark");
    await expectAccessible(support, "the branded support page, the device dark");
    expect(supportProblems).toEqual([]);
    await support.close();
    expect(problems).toEqual([]);
    await context.close();
  });

  it("records each change of the look in the audit log, the logo by its size and hash", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bo, PASSWORD);
    await page.goto(`${base}/app/settings/audit-log`);
    await page.getByLabel("Kind", { exact: true }).selectOption({ label: "Games" });
    const rows = page.locator(".audit-table tbody tr").filter({ hasText: "Support page's look changed" });
    await expect.poll(() => rows.count()).toBe(2);
    const text = (await rows.allTextContents()).join("\n");
    expect(text).toContain("Aurora Drift");
    expect(text).toContain("Accent colour: — → #c2185b");
    expect(text).toContain("Accent colour: #c2185b → #ffd54f");
    expect(text).toContain("Light or dark: light → dark");
    expect(text).toContain("Light or dark: dark → system");
    expect(text).toMatch(/Logo: — → PNG 160×48, 1 KiB, [0-9a-f]{8}/);
    await screenshot(page, "188-settings-audit-branding");
    await expectAccessible(page, "the audit log of the look");
    expect(problems).toEqual([]);
    await context.close();
  });
});
