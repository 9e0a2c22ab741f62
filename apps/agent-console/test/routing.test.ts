// Routing in headless Chromium over the real stack (docs/automation.md): an agent switches
// between away and available in the header; an admin turns a game's routing on (Settings →
// Games) and sets the agent's ticket languages and capacity (Settings → Team); a new ticket is
// assigned by routing and the ticket's history says so; "Unassign for automatic assignment"
// hands it to the other available agent. axe on every page, a screenshot of every step (270–279)
// in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("routing in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const adam = `adam-${suffix}@routing.example`;
  const mia = `mia-${suffix}@routing.example`;
  const noah = `noah-${suffix}@routing.example`;

  /** Signs Noah in over the API and makes him available, as his own console would. */
  async function noahAvailable(): Promise<void> {
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email: noah, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    const set = await stack.request("/agent-api/me/availability", { method: "PUT", headers: { cookie, origin: base, "x-csrf-token": csrfToken }, json: { available: true } });
    expect(set.status, set.text).toBe(200);
  }

  async function newTicket(): Promise<string> {
    const response = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.arena!.id, message: `The arena lobby freezes ${randomUUID()}`, language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } } },
    });
    expect(response.status, response.text).toBe(200);
    return (response.body as { ticketId: string }).ticketId;
  }

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Routing Studio" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en", "de"], environments: [{ ref: "arena-prod", name: "production" }] }],
      users: [
        { ref: "adam", name: "Adam Admin", email: adam, role: "admin" },
        { ref: "mia", name: "Mia Meyer", email: mia, role: "agent", games: ["arena"] },
        { ref: "noah", name: "Noah North", email: noah, role: "agent", games: ["arena"] },
      ],
    });
    for (const email of [adam, mia, noah]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const availability = (page: Page) => page.getByRole("switch", { name: "Availability for automatic assignment" });
  const rowOf = (page: Page, name: string) => page.getByRole("table", { name: "People" }).locator("tbody tr").filter({ hasText: name });
  const historyOf = (page: Page) => page.getByRole("region", { name: "Assignment history" }).locator("li");

  it("lets an agent go available and away, an admin turn routing on and set languages and capacity, and shows routing's assignments and the requeue", async () => {
    // Mia starts away; the switch in the header says so in words.
    const agent = await signedInPage(browser, base, mia, PASSWORD);
    const miaPage = agent.page;
    await expect.poll(() => availability(miaPage).textContent()).toBe("Away");
    expect(await availability(miaPage).getAttribute("aria-checked")).toBe("false");
    await screenshot(miaPage, "270-routing-away");
    await expectAccessible(miaPage, "the inbox with the availability switch");
    await availability(miaPage).click();
    await expect.poll(() => availability(miaPage).textContent()).toBe("Available");
    expect(await availability(miaPage).getAttribute("aria-checked")).toBe("true");
    await screenshot(miaPage, "271-routing-available");
    await expectAccessible(miaPage, "the availability switch on");

    // The admin turns routing on for the game.
    // The refused capacity is part of the flow.
    const admin = await signedInPage(browser, base, adam, PASSWORD, { expected: [`400 /agent-api/settings/users/${tenant.users.mia}`] });
    const adminPage = admin.page;
    await adminPage.goto(`${base}/app/settings/games/${tenant.games.arena!.id}`);
    const routing = adminPage.getByLabel("Assign tickets automatically (routing)");
    await routing.waitFor();
    expect(await routing.isChecked()).toBe(false);
    await routing.check();
    await adminPage.getByRole("button", { name: "Save changes" }).click();
    await adminPage.getByText("The game is saved.").waitFor();
    await screenshot(adminPage, "272-routing-game-on");
    await expectAccessible(adminPage, "the game with routing on");

    // ...and sets Mia's languages and capacity; a bad capacity is refused at its field.
    await adminPage.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Team" }).click();
    await rowOf(adminPage, "Mia Meyer").getByRole("button", { name: "Change Mia Meyer" }).click();
    await adminPage.getByLabel("Ticket languages").fill("en, de");
    await adminPage.getByLabel("Capacity").fill("lots");
    await adminPage.getByRole("button", { name: "Save", exact: true }).click();
    await adminPage.getByText("Enter a whole number from 0 to 1000.").waitFor();
    await screenshot(adminPage, "273-routing-capacity-refused");
    await expectAccessible(adminPage, "the change form with a refused capacity");
    await adminPage.getByLabel("Capacity").fill("3");
    await adminPage.getByRole("button", { name: "Save", exact: true }).click();
    await adminPage.getByText("The changes to Mia Meyer are saved.").waitFor();
    await expect.poll(() => rowOf(adminPage, "Mia Meyer").textContent()).toContain("Languages: en, de · capacity 3");
    expect(await rowOf(adminPage, "Mia Meyer").textContent()).toContain("Available");
    await screenshot(adminPage, "274-routing-team");
    await expectAccessible(adminPage, "the team with routing settings");

    // A new ticket goes to Mia, the only one available; its history says routing did it.
    const ticketId = await newTicket();
    await miaPage.goto(`${base}/app/tickets/${ticketId}`);
    await expect.poll(async () => {
      await miaPage.reload();
      await historyOf(miaPage).first().waitFor({ timeout: 2000 }).catch(() => undefined);
      return historyOf(miaPage).allTextContents();
    }, { timeout: 20_000 }).toEqual([expect.stringContaining("Assigned to you by routing")]);
    await screenshot(miaPage, "275-routing-history");
    await expectAccessible(miaPage, "the ticket with its assignment history");

    // Noah becomes available; Mia hands the ticket back to routing, which gives it to Noah.
    await noahAvailable();
    await miaPage.getByRole("button", { name: "Unassign for automatic assignment" }).click();
    await expect.poll(async () => {
      await miaPage.reload();
      await historyOf(miaPage).first().waitFor({ timeout: 2000 }).catch(() => undefined);
      return historyOf(miaPage).allTextContents();
    }, { timeout: 20_000 }).toEqual([
      expect.stringContaining("Assigned to you by routing"),
      expect.stringContaining("Unassigned by you"),
      expect.stringContaining("Assigned to Noah North by routing"),
    ]);
    await screenshot(miaPage, "276-routing-requeued");
    await expectAccessible(miaPage, "the requeued ticket");

    // Away again: the switch says so.
    await availability(miaPage).click();
    await expect.poll(() => availability(miaPage).textContent()).toBe("Away");
    await screenshot(miaPage, "277-routing-away-again");

    expect(agent.problems).toEqual([]);
    expect(admin.problems).toEqual([]);
    await agent.context.close();
    await admin.context.close();
  }, 180_000);
});
