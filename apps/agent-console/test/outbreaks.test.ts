// Outbreaks in headless Chromium over the real stack (docs/automation.md, "Outbreaks"): an admin
// turns detection on in Settings → Outbreaks (a value out of range is refused at its field); a
// burst of alike tickets opens an incident, shown to the agent in a banner as it happens (the live
// stream); the incident page
// lists its tickets; "Answer all" with a canned response chosen by keyboard answers every
// ticket; the admin publishes the game's announcement; the agent closes the incident and the
// banner goes, from the admin's open page too. axe on every page, a screenshot of every step (320–329) in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage, tabTo } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const BURST = [
  "Can't connect to the server since today's update, error 503 on login",
  "Since the update today I can't connect to the server, login gives error 503",
  "error 503 when I try to login, can't connect to server after the update",
];

describe("outbreaks in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const adam = `adam-${suffix}@outbreaks.example`;
  const mia = `mia-${suffix}@outbreaks.example`;

  async function newTicket(message: string): Promise<string> {
    const response = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.arena!.id, message, language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, name: `Player ${message.length}`, email: `${randomUUID()}@players.example` } } },
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
      company: { name: "Outbreak Studio", primaryLanguage: "en" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en", "de"], environments: [{ ref: "arena-prod", name: "production" }] }],
      users: [
        { ref: "adam", name: "Adam Admin", email: adam, role: "admin" },
        { ref: "mia", name: "Mia Meyer", email: mia, role: "agent", games: ["arena"] },
      ],
    });
    for (const email of [adam, mia]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("turns detection on, shows the incident in a banner, answers all its tickets, publishes the announcement and closes it", async () => {
    // The admin turns outbreak detection on; a similarity out of range is refused at its field.
    const admin = await signedInPage(browser, base, adam, PASSWORD, { expected: ["400 /agent-api/settings/outbreaks"] });
    const adminPage = admin.page;
    await adminPage.goto(`${base}/app/settings/outbreaks`);
    await adminPage.getByLabel("Detect outbreaks").check();
    await adminPage.getByLabel("Tickets that open an incident").fill("3");
    await adminPage.getByLabel("Similarity").fill("2");
    await adminPage.getByRole("button", { name: "Save", exact: true }).click();
    await adminPage.getByText("Enter a number from 0.2 to 0.95.").waitFor();
    await screenshot(adminPage, "320-outbreaks-settings-refused");
    await expectAccessible(adminPage, "the outbreak settings with a refused similarity");
    await adminPage.getByLabel("Similarity").fill("0.6");
    await adminPage.getByRole("button", { name: "Save", exact: true }).click();
    await adminPage.getByText("Outbreak settings saved.").waitFor();
    await screenshot(adminPage, "321-outbreaks-settings-saved");
    await expectAccessible(adminPage, "the outbreak settings saved");

    const canned = await stack.request("/agent-api/canned-responses", {
      method: "POST",
      headers: await (async () => {
        const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email: adam, password: PASSWORD } });
        const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
        const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
        return { cookie, origin: base, "x-csrf-token": csrfToken };
      })(),
      json: { name: "Servers are back", texts: { en: "Hi {{player.name}}, the servers are back: please restart the game." } },
    });
    expect(canned.status, canned.text).toBe(201);

    // A burst of alike tickets opens an incident: Mia, in her inbox, sees the banner appear
    // without reading the page again (the live stream's incident change).
    const agent = await signedInPage(browser, base, mia, PASSWORD);
    const page = agent.page;
    await page.goto(`${base}/app/`);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    const banner = page.getByRole("region", { name: "Open incidents" });
    expect(await banner.count()).toBe(0);
    const tickets: string[] = [];
    for (const message of BURST) tickets.push(await newTicket(message));
    await banner.waitFor({ timeout: 20_000 });
    // The game's name once the console's directory has loaded.
    await expect.poll(() => banner.textContent()).toContain(`Outbreak in Arena: ${BURST[0]} (3 tickets)`);
    await screenshot(page, "322-outbreaks-banner");
    await expectAccessible(page, "the inbox with the incident banner");

    // By keyboard: to the incident, a canned response chosen, "Answer all".
    await tabTo(page, BURST[0]!);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: `Incident: ${BURST[0]}` }).waitFor();
    const rows = page.getByRole("table", { name: "Tickets" }).locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    await screenshot(page, "323-outbreaks-incident");
    await expectAccessible(page, "the incident page");
    await tabTo(page, "Canned response");
    await page.keyboard.press("ArrowDown");
    expect(await page.getByLabel("Canned response").inputValue()).not.toBe("");
    await tabTo(page, "Answer all");
    await page.keyboard.press("Enter");
    await page.getByText("Answered 3 tickets; 0 closed ones left alone; 0 could not be answered.").waitFor();
    await screenshot(page, "324-outbreaks-answered");
    await expectAccessible(page, "the incident answered");
    // Each ticket has the reply, filled in for its player.
    for (const ticketId of tickets) {
      const events = (await stack.request(`/tickets/${ticketId}/events`, { key: tenant.apiKeys.main! })).body as { events: { type: string; message?: string }[] };
      expect(events.events.map((event) => event.type)).toEqual(["PLAYER_MESSAGE", "AGENT_MESSAGE"]);
      expect(events.events[1]!.message).toMatch(/^Hi Player \d+, the servers are back: please restart the game\.$/);
    }

    // An agent does not publish announcements; the admin does, from the incident.
    expect(await page.getByRole("button", { name: "Publish announcement" }).count()).toBe(0);
    await adminPage.goto(`${base}/app/incidents/${page.url().split("/").at(-1)}`);
    await adminPage.getByLabel("Announcement for Arena").fill("Login servers were down; they are back.");
    await adminPage.getByRole("button", { name: "Publish announcement" }).click();
    await adminPage.getByText("The announcement of Arena is published.").waitFor();
    await screenshot(adminPage, "325-outbreaks-announcement");
    await expectAccessible(adminPage, "the incident with its announcement published");

    // Mia closes it; the banner goes, on the admin's open page too (live, no page change).
    const adminBanner = adminPage.getByRole("region", { name: "Open incidents" });
    await adminBanner.waitFor();
    await page.getByRole("button", { name: "Close incident" }).click();
    await page.getByText("The incident is closed.").waitFor();
    await expect.poll(() => banner.count()).toBe(0);
    await expect.poll(() => adminBanner.count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByText(/^Closed\. Arena, opened/).count()).toBe(1);
    await screenshot(page, "326-outbreaks-closed");
    await expectAccessible(page, "the closed incident");

    expect(agent.problems).toEqual([]);
    expect(admin.problems).toEqual([]);
    await agent.context.close();
    await admin.context.close();
  });
});
