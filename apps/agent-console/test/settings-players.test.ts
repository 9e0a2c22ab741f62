// Settings → Players in headless Chromium over the real stack: an admin blocks players of a game
// by player id and by email (the form says what is missing first), unblocks one, sees the game's
// scheduled deletions (made through the public API) with who scheduled them and when they are
// due, cancels one (a second click confirms), and deletes a player's data at once (a second click
// confirms); the audit log page shows every change, by the admin. In a company without immediate
// deletion the page explains that it is not enabled; an agent gets the admins-only page. A block
// and unblock by keyboard alone. axe on every state, screenshots 240-249 in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createPool } from "@support/db";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("Settings → Players in Chromium", () => {
  let consoleBundle: BuiltBundle;
  let stack: Stack;
  let browser: Browser;
  let base: string;
  let tenant: TenantResult;
  const suffix = randomUUID().slice(0, 8);
  const ivy = `ivy-${suffix}@players.example`;
  const dan = `dan-${suffix}@strict.example`;
  const abe = `abe-${suffix}@players.example`;
  const pat = `pat-${suffix}`;
  const lee = `lee-${suffix}`;
  const mia = `mia-${suffix}@mail.example`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Players Studio", primaryLanguage: "en", allowImmediateDeletion: true },
      apiKeys: [{ name: "main" }],
      games: [
        { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
        { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
      ],
      users: [
        { ref: "ivy", name: "Ivy Players", email: ivy, role: "admin" },
        { ref: "abe", name: "Abe Agent", email: abe, role: "agent", games: ["galaxy"] },
      ],
    });
    await stack.applyTenant({
      company: { name: "Strict Studio", primaryLanguage: "en", allowImmediateDeletion: false },
      games: [{ ref: "strict", name: "Strict", slug: `strict-${suffix}`, languages: ["en"], environments: [{ ref: "strict-prod", name: "production" }] }],
      users: [{ ref: "dan", name: "Dan Strict", email: dan, role: "admin" }],
    });
    for (const email of [ivy, dan, abe]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const blockedRow = (page: Page, label: string) => page.locator("#blocked-title ~ table tbody tr", { has: page.locator("th", { hasText: label }) });
  const deletionRow = (page: Page, label: string) => page.locator("#deletions-title ~ table tbody tr", { has: page.locator("th", { hasText: label }) });
  /** Schedules the deletion of a player of the company through the public API (as a game's backend would). */
  async function scheduleDeletion(externalId: string) {
    const pool = createPool({ url: stack.infra.databaseUrl, schema: "players", maxConnections: 1 });
    let servicePlayerId: string;
    try {
      servicePlayerId = (await pool.query<{ id: string }>("select id from players where external_id = $1", [externalId])).rows[0]!.id;
    } finally {
      await pool.end();
    }
    const response = await stack.request("/player/schedule-deletion", { method: "POST", key: tenant.apiKeys.main!, json: { servicePlayerId } });
    expect(response.status, response.text).toBe(200);
  }

  it("blocks and unblocks, cancels a scheduled deletion, deletes a player's data now; the audit log shows it all", async () => {
    const { context, page, problems } = await signedInPage(browser, base, ivy, PASSWORD);
    await page.goto(`${base}/app/settings/players`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Players");
    await page.getByText("No player of this game is blocked.").waitFor();
    await page.getByText("No deletion is scheduled for players of this game.").waitFor();
    await page.getByRole("button", { name: "Delete now" }).waitFor();
    await screenshot(page, "240-settings-players-empty");
    await expectAccessible(page, "the empty players page");

    // Nothing given: the form says what is missing, without asking the API.
    await page.getByRole("button", { name: "Block", exact: true }).click();
    await page.locator("#block-player-id-error", { hasText: "Enter the player ID or the email address (one of the two)." }).waitFor();
    await screenshot(page, "241-settings-players-block-missing");
    await expectAccessible(page, "the block form with its error");

    await page.locator("#block-player-id").fill(pat);
    await page.getByRole("button", { name: "Block", exact: true }).click();
    await page.getByText(`${pat} is blocked.`).waitFor();
    await page.locator("#block-player-id").fill(lee);
    await page.getByRole("button", { name: "Block", exact: true }).click();
    await page.getByText(`${lee} is blocked.`).waitFor();
    await page.locator("#block-email").fill(mia);
    await page.getByRole("button", { name: "Block", exact: true }).click();
    await page.getByText(`${mia} is blocked.`).waitFor();
    // Newest first.
    await expect.poll(() => page.locator("#blocked-title ~ table tbody th").allTextContents()).toEqual([mia, lee, pat]);
    await screenshot(page, "242-settings-players-blocked");
    await expectAccessible(page, "the blocked players");

    await page.getByRole("button", { name: `Unblock ${mia}` }).click();
    await page.getByText(`${mia} may contact support again.`).waitFor();
    await expect.poll(() => blockedRow(page, mia).count()).toBe(0);
    // Another game lists none of them.
    await page.getByLabel("Game").selectOption({ label: "Farm" });
    await page.getByText("No player of this game is blocked.").waitFor();
    await page.getByLabel("Game").selectOption({ label: "Galaxy" });
    await blockedRow(page, pat).waitFor();

    // Deletions scheduled through the public API: who and when.
    await scheduleDeletion(pat);
    await scheduleDeletion(lee);
    await page.reload();
    await deletionRow(page, lee).waitFor();
    expect(await deletionRow(page, pat).textContent()).toContain("by API key");
    await screenshot(page, "243-settings-players-scheduled");
    await expectAccessible(page, "the scheduled deletions");

    // Cancel: the second click confirms, and takes the focus.
    await page.getByRole("button", { name: `Cancel deletion of ${lee}` }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")).toBe(`Yes, cancel the deletion of ${lee}`);
    await screenshot(page, "244-settings-players-confirm-cancel");
    await expectAccessible(page, "a cancellation to confirm");
    await page.getByRole("button", { name: `Yes, cancel the deletion of ${lee}` }).click();
    await page.getByText(`The deletion of ${lee} is cancelled; their data stays.`).waitFor();
    await expect.poll(() => deletionRow(page, lee).count()).toBe(0);
    await deletionRow(page, pat).waitFor();

    // Delete now: the second click confirms.
    await page.locator("#erase-player-id").fill(pat);
    await page.getByRole("button", { name: "Delete now" }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? "")).toBe(`Delete all data of ${pat} now`);
    await screenshot(page, "245-settings-players-confirm-delete");
    await expectAccessible(page, "a deletion to confirm");
    await page.getByRole("button", { name: `Delete all data of ${pat} now` }).click();
    await page.getByText(`The data of ${pat} is deleted.`).waitFor();
    await expect.poll(() => blockedRow(page, pat).count()).toBe(0);
    await expect.poll(() => deletionRow(page, pat).count()).toBe(0);
    await page.getByText("No deletion is scheduled for players of this game.").waitFor();
    await screenshot(page, "246-settings-players-after-changes");
    await expectAccessible(page, "the players page after the changes");

    // The audit log: every change, by Ivy (content records what the players service hands over).
    await page.goto(`${base}/app/settings/audit-log`);
    const rows = page.locator(".audit-table tbody tr");
    const expected = ["Player's data deleted", "Player deletion cancelled", "Player unblocked", "Player blocked", "Player blocked", "Player blocked"];
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByLabel("Kind").selectOption({ label: "Players" });
          await rows.first().waitFor({ timeout: 5_000 }).catch(() => undefined);
          return rows.evaluateAll((found) => found.map((row) => row.children[2]?.firstChild?.textContent ?? ""));
        },
        { timeout: 30_000 },
      )
      .toEqual(expected);
    const texts = await rows.allTextContents();
    expect(texts.every((text) => text.includes("Ivy Players"))).toBe(true);
    expect(texts.some((text) => text.includes(`Player ${lee}`))).toBe(true);
    expect(texts.join("\n")).not.toContain(mia);
    // Who had asked for the cancelled deletion, in words.
    expect(texts.find((text) => text.includes("Player deletion cancelled"))).toContain("Scheduled by: an API key → —");
    await screenshot(page, "247-settings-audit-log-players");
    await expectAccessible(page, "the audit log with the player changes");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("explains that immediate deletion is not enabled for a company without it; an agent gets the admins-only page", async () => {
    const { context, page, problems } = await signedInPage(browser, base, dan, PASSWORD);
    await page.goto(`${base}/app/settings/players`);
    await page.locator("#erase-not-allowed", { hasText: "Deleting a player's data at once is not enabled for your company." }).waitFor();
    expect(await page.getByRole("button", { name: "Delete now" }).count()).toBe(0);
    await screenshot(page, "248-settings-players-deletion-not-enabled");
    await expectAccessible(page, "the players page without immediate deletion");
    // The API refuses it too, with the JSON error body.
    const refused = await page.evaluate(async () => {
      const me = (await (await fetch("/agent-api/me")).json()) as { csrfToken: string };
      const games = (await (await fetch("/agent-api/settings/games")).json()) as { games: { id: string }[] };
      const response = await fetch(`/agent-api/settings/games/${games.games[0]!.id}/player-erasures`, {
        method: "POST", headers: { "content-type": "application/json", "x-csrf-token": me.csrfToken }, body: JSON.stringify({ playerId: "anyone" }),
      });
      return { status: response.status, body: (await response.json()) as { code: string } };
    });
    expect(refused).toMatchObject({ status: 403, body: { code: "permission_denied" } });
    expect(problems.filter((problem) => !problem.includes("403 /agent-api/settings/games/"))).toEqual([]);
    await context.close();

    const agent = await signedInPage(browser, base, abe, PASSWORD);
    await agent.page.goto(`${base}/app/settings/players`);
    await agent.page.getByText("The settings are for the company's admins.").waitFor();
    expect(agent.problems).toEqual([]);
    await agent.context.close();
  });

  it("blocks and unblocks a player by keyboard alone", async () => {
    const { context, page, problems } = await signedInPage(browser, base, ivy, PASSWORD);
    await page.goto(`${base}/app/settings/players`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    const kim = `kim-${suffix}`;
    await tabTo(page, "Player ID");
    await page.keyboard.type(kim);
    await tabTo(page, "Block");
    await page.keyboard.press("Enter");
    await page.getByText(`${kim} is blocked.`).waitFor();
    await tabTo(page, `Unblock ${kim}`);
    await screenshot(page, "249-settings-players-keyboard");
    await expectAccessible(page, "the keyboard user's players page");
    await page.keyboard.press("Enter");
    await page.getByText(`${kim} may contact support again.`).waitFor();
    await expect.poll(() => blockedRow(page, kim).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
