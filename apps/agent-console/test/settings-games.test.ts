// Settings → Games in headless Chromium over the real stack: an admin adds a game and an
// environment, opens the web support page with the environment's token (the page loads for
// that game), changes the game, gives the environment a new token (both work during the
// overlap), pastes the game's public keys and tests a good and a bad signed metadata token;
// then the same by keyboard alone, and the changes in the audit log. axe on every page, a
// screenshot of every step (120-139) in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack } from "@support/gateway/test-stack";
import { signingKey, signMetadata, type SigningKey } from "@support/gateway/test-signed-metadata";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo, watchPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("Settings → Games in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let supportBundle: BuiltBundle;
  let stack: Stack;
  let browser: Browser;
  let base: string;
  let key: SigningKey;
  const suffix = randomUUID().slice(0, 8);
  const bea = `bea-${suffix}@games.example`;
  const slug = `comet-${suffix}`;

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
    await stack.applyTenant({
      company: { name: "Comet Studio" },
      games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"] }],
      users: [{ ref: "bea", name: "Bea Games", email: bea, role: "admin" }],
    });
    await stack.admin(["users", "set-password", "--email", bea], `${PASSWORD}\n`);
    key = await signingKey("comet-2026");
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const openSession = (token: string) => stack.request("/support/sessions", { method: "POST", json: { token } });
  const environmentRow = (page: Page, name: string) => page.getByRole("table", { name: "Environments and tokens" }).locator("tbody tr").filter({ hasText: name });
  let gamePath = "";
  const tokensSeen: string[] = [];

  it("adds a game and an environment, opens the support page with its token, rotates it and tests signed tokens", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/api-keys`);
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Games" }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/settings/games`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Games");
    await page.getByRole("table", { name: "Games" }).getByRole("link", { name: "Galaxy" }).waitFor();
    await screenshot(page, "120-settings-games");
    await expectAccessible(page, "the games page");

    // The form says what is wrong at each field.
    await page.getByLabel("Slug", { exact: true }).fill("Comet Raiders");
    await page.getByRole("button", { name: "Create the game" }).click();
    await page.getByText("Enter a name of at most 200 characters.").waitFor();
    await page.getByText("Use 1 to 64 lower-case letters, digits and inner hyphens.").waitFor();
    await page.getByText("Enter at least one known language code (en, de, fr, …), each once.").waitFor();
    expect(await page.getByLabel("Slug", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "121-settings-game-form-errors");
    await expectAccessible(page, "the game form with errors");

    await page.getByLabel("Name", { exact: true }).fill("Comet Raiders");
    await page.getByLabel("Slug", { exact: true }).fill(slug);
    await page.getByLabel("Languages", { exact: true }).fill("en, de");
    await page.getByRole("button", { name: "Create the game" }).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`^${base}/app/settings/games/[0-9a-f-]{36}$`));
    gamePath = new URL(page.url()).pathname;
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Game: Comet Raiders");
    await page.getByText("No environment yet: add one to get a token.").waitFor();
    await screenshot(page, "122-settings-game-created");
    await expectAccessible(page, "a new game's page");

    // An environment: its token works at once.
    await page.getByLabel("Environment name", { exact: true }).fill("production");
    await page.getByRole("button", { name: "Add the environment" }).click();
    await page.getByText("production is added; its token works at once.").waitFor();
    const row = environmentRow(page, "production");
    const token = (await row.locator("code.token").first().textContent())!.trim();
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    tokensSeen.push(token);
    await screenshot(page, "123-settings-game-environment-added");
    await expectAccessible(page, "a game with an environment");

    // The support page opens for this game with the token.
    const [support] = await Promise.all([context.waitForEvent("page"), row.getByRole("link", { name: "Open the support page of production in a new tab" }).click()]);
    const supportProblems = watchPage(support, base);
    await support.getByRole("heading", { level: 1, name: "Support" }).waitFor();
    await expect.poll(() => support.locator(".game-name").textContent()).toBe("Comet Raiders");
    expect(support.url()).toContain(`${base}/support/`);
    await screenshot(support, "124-web-support-opened-with-new-token");
    await expectAccessible(support, "the web support page of the new game");
    expect(supportProblems).toEqual([]);
    await support.close();

    // Rename and change languages and the players it takes; removing a language keeps its texts.
    await page.getByLabel("Name", { exact: true }).fill("Comet Raiders II");
    await page.getByLabel("Languages", { exact: true }).fill("en");
    await page.getByLabel("Only verified players", { exact: true }).check();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("The game is saved. Texts in de are kept; players see them only when they ask for that language.").waitFor();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Game: Comet Raiders II");
    await screenshot(page, "125-settings-game-changed");
    // Back to everyone, so that the support page opens without verification below.
    await page.getByLabel("Only verified players", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("The game is saved.", { exact: true }).waitFor();

    // A new token: the first click asks how long the current one keeps working.
    await row.getByRole("button", { name: "New token for production" }).click();
    expect(await row.getByLabel("The current token keeps working", { exact: true }).inputValue()).toBe("86400");
    await screenshot(page, "126-settings-token-rotate-confirm");
    await expectAccessible(page, "the token rotation's choice");
    await row.getByRole("button", { name: "Make a new token for production now" }).click();
    await page.getByText("production has a new token. The previous one keeps working until the time shown.").waitFor();
    const newToken = (await row.locator("code.token").first().textContent())!.trim();
    expect(newToken).not.toBe(token);
    tokensSeen.push(newToken);
    expect(await row.locator("code.token").nth(1).textContent()).toBe(token);
    expect(await row.textContent()).toMatch(/works until [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    expect((await openSession(newToken)).status).toBe(200);
    expect((await openSession(token)).status).toBe(200);
    await screenshot(page, "127-settings-token-rotated");
    await expectAccessible(page, "a rotated token");
    const [again] = await Promise.all([context.waitForEvent("page"), row.getByRole("link", { name: "Open the support page of production in a new tab" }).click()]);
    await again.getByRole("heading", { level: 1, name: "Support" }).waitFor();
    await expect.poll(() => again.locator(".game-name").textContent()).toBe("Comet Raiders II");
    expect(again.url()).toContain(`${base}/support/`);
    await screenshot(again, "128-web-support-opened-with-rotated-token");
    await again.close();

    // The game's keys: bad JSON and a private key are refused, the public key is saved.
    const good = await signMetadata(key, { player: { id: "p-42", name: "Pat" } });
    await page.getByLabel("Signed metadata token", { exact: true }).fill(good);
    await page.getByRole("button", { name: "Test the token" }).click();
    await page.getByText("Not verified: the game has no keys yet.").waitFor();
    await page.getByLabel("Public keys (JWKS)", { exact: true }).fill("{ not json");
    await page.getByRole("button", { name: "Save the keys" }).click();
    await page.getByText("This is not a JSON object. Paste the whole JWKS, starting with {.").waitFor();
    await page.getByLabel("Public keys (JWKS)", { exact: true }).fill(JSON.stringify({ keys: [key.privateJwk] }));
    await page.getByRole("button", { name: "Save the keys" }).click();
    await page.getByText("The keys were not saved: /metadataJwks/keys/0/d", { exact: false }).waitFor();
    await screenshot(page, "129-settings-keys-private-refused");
    await page.getByLabel("Public keys (JWKS)", { exact: true }).fill(JSON.stringify({ keys: [key.publicJwk] }, null, 2));
    await page.getByRole("button", { name: "Save the keys" }).click();
    await page.getByText("The keys are saved and verify tokens from now on.").waitFor();
    await page.getByText("Keys now: comet-2026").waitFor();
    await screenshot(page, "130-settings-keys-saved");

    // The test tool: a good token verifies, a bad one says why.
    await page.getByRole("button", { name: "Test the token" }).click();
    await page.getByText("Verified with the key comet-2026.").waitFor();
    await page.getByText("Player: p-42 · Pat").waitFor();
    await screenshot(page, "131-settings-token-test-verified");
    await expectAccessible(page, "a verified token");
    const stranger = await signingKey("comet-2026");
    await page.getByLabel("Signed metadata token", { exact: true }).fill(await signMetadata(stranger, { player: { id: "p-42" } }));
    await page.getByRole("button", { name: "Test the token" }).click();
    await page.getByText("Not verified: the signature does not match the key (bad signature).").waitFor();
    await screenshot(page, "132-settings-token-test-bad-signature");
    await expectAccessible(page, "a refused token");
    await page.getByLabel("Signed metadata token", { exact: true }).fill(await signMetadata(key, { player: { id: "p-42" } }, { exp: "-10m" }));
    await page.getByRole("button", { name: "Test the token" }).click();
    await page.getByText("Not verified: it has expired.").waitFor();
    await page.getByLabel("Signed metadata token", { exact: true }).fill("hello");
    await page.getByRole("button", { name: "Test the token" }).click();
    await page.getByText("Not verified: it is not a signed JWT (malformed).").waitFor();
    await screenshot(page, "133-settings-token-test-malformed");

    // The list shows the renamed game with its environment.
    await page.getByRole("link", { name: "All games" }).click();
    const listed = page.getByRole("table", { name: "Games" }).locator("tbody tr").filter({ hasText: "Comet Raiders II" });
    await listed.waitFor();
    expect(await listed.textContent()).toContain("production");
    await screenshot(page, "134-settings-games-listed");
    // The one refusal of the flow: the private key.
    expect(problems).toEqual([`PUT 400 /agent-api${gamePath.replace("/app", "")}/metadata-keys`]);
    await context.close();
  });

  it("works by keyboard alone: rotate a token with no overlap and test a token", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}${gamePath}`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const row = environmentRow(page, "production");
    await row.waitFor();
    const before = (await row.locator("code.token").first().textContent())!.trim();
    const focusOn = (label: string) => tabTo(page, label);
    await focusOn("New token for production");
    await page.keyboard.press("Enter");
    await focusOn("The current token keeps working");
    await page.keyboard.press("Home");
    expect(await row.getByLabel("The current token keeps working", { exact: true }).inputValue()).toBe("0");
    await screenshot(page, "135-settings-keyboard-rotate-at-once");
    await focusOn("Make a new token for production now");
    await page.keyboard.press("Enter");
    await page.getByText("production has a new token. The previous one stopped working.").waitFor();
    const after = (await row.locator("code.token").first().textContent())!.trim();
    expect(after).not.toBe(before);
    tokensSeen.push(after);
    // No overlap: the previous token names nothing any more.
    expect((await openSession(before)).status).toBe(404);
    expect((await openSession(after)).status).toBe(200);
    await screenshot(page, "136-settings-keyboard-rotated");

    await focusOn("Signed metadata token");
    await page.keyboard.type(await signMetadata(key, { player: { id: "p-7" } }));
    await focusOn("Test the token");
    await page.keyboard.press("Enter");
    await page.getByText("Verified with the key comet-2026.").waitFor();
    await screenshot(page, "137-settings-keyboard-token-verified");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("records every change in the audit log, tokens by their first characters only", async () => {
    const { context, page, problems } = await signedInPage(browser, base, bea, PASSWORD);
    await page.goto(`${base}/app/settings/audit-log`);
    await page.getByLabel("Kind", { exact: true }).selectOption({ label: "Games" });
    const rows = page.locator(".audit-table tbody tr");
    await expect.poll(async () => (await rows.allTextContents()).join("\n")).toContain("Game's metadata keys changed");
    const text = (await rows.allTextContents()).join("\n");
    expect(text).toContain("Game changed");
    expect(text).toContain("Game created");
    expect(text).toContain("Comet Raiders → Comet Raiders II");
    await screenshot(page, "138-settings-audit-games");
    await page.getByLabel("Kind", { exact: true }).selectOption({ label: "Environments" });
    await expect.poll(async () => (await rows.allTextContents()).join("\n")).toContain("Environment token replaced");
    const environmentText = (await rows.allTextContents()).join("\n");
    expect(environmentText).toContain("Environment created");
    // No whole token anywhere in the log.
    const table = (await page.locator(".audit-table").textContent())!;
    expect(tokensSeen).toHaveLength(3);
    for (const token of tokensSeen) {
      expect(table).not.toContain(token);
      expect(table).toContain(token.slice(0, 8));
    }
    await screenshot(page, "139-settings-audit-environments");
    await expectAccessible(page, "the audit log of games");
    expect(problems).toEqual([]);
    await context.close();
  });
});
