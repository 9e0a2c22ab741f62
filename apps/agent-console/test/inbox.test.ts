// The support application's inbox and ticket page end to end in headless Chromium, two agents
// in two browser contexts over the real stack: a ticket created through the public API arrives
// in "Unassigned" without a reload, opens from its `url`, is taken, answered and noted; the other
// agent sees the first one viewing and typing; the list follows the changes; the ticket is
// resolved; the whole of it by keyboard in the list (j/k, Enter, r). axe on every page, a
// screenshot of every step in .ci/out/agent-console/.
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

describe("the inbox and the ticket page in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@studio.example`;
  const bob = `bob-${suffix}@studio.example`;
  const dana = `dana-${suffix}@studio.example`;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Inbox Studio" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
      users: [
        { ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["galaxy"] },
        { ref: "bob", name: "Bob Builder", email: bob, role: "agent", displayName: "Bob", games: ["galaxy"] },
        { ref: "dana", name: "Dana Admin", email: dana, role: "admin", displayName: "Dana" },
      ],
      tags: [{ name: "lost-ship", game: null }],
    });
    for (const email of [ada, bob, dana]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const agentPage = (email: string) => signedInPage(browser, base, email, PASSWORD);

  async function createTicket(name: string, message: string): Promise<{ id: string; url: string }> {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.galaxy!.id, message, language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID().slice(0, 6)}`, name, email: "pat@example.com", tier: 2 } } },
    });
    expect(created.status, created.text).toBe(200);
    const { ticketId } = created.body as { ticketId: string };
    const listed = await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! });
    return { id: ticketId, url: (listed.body as { tickets: { url: string }[] }).tickets[0]!.url };
  }

  const count = (page: Page, view: string) => page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: new RegExp(`^${view}`) }).locator(".count").textContent();

  it("shows a new ticket in Unassigned live, opens it from its url, and two agents see each other on it", async () => {
    const first = await agentPage(ada);
    const second = await agentPage(bob);
    const { page } = first;
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: /^Unassigned/ }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/views/unassigned`);
    await expect.poll(() => count(page, "Unassigned")).toBe("0");
    await page.getByText("No tickets here.").waitFor();
    await screenshot(page, "20-inbox-empty");
    await expectAccessible(page, "the empty inbox");

    const ticket = await createTicket("Pat Player", "My ship vanished after the jump to Orion.");
    expect(ticket.url).toBe(`${base}/app/tickets/${ticket.id}`);
    // No reload: the live stream brings it.
    const row = page.getByRole("listitem").filter({ hasText: "Pat Player" });
    await row.waitFor({ timeout: 10_000 });
    await expect.poll(() => count(page, "Unassigned")).toBe("1");
    expect(await row.textContent()).toContain("New");
    // Its subject line, and unread: nobody has looked at it yet.
    expect(await row.locator(".subject").textContent()).toBe("My ship vanished after the jump to Orion.");
    expect(await row.getByRole("img", { name: "Unread" }).count()).toBe(1);
    await screenshot(page, "21-inbox-ticket-arrived");
    await expectAccessible(page, "the inbox with a ticket");
    // The layout holds from 1024 px up: no row is wider than the list.
    await page.setViewportSize({ width: 1024, height: 768 });
    expect(await page.locator(".ticket-row a").first().evaluate((row) => row.scrollWidth <= row.clientWidth + 1)).toBe(true);
    await screenshot(page, "21b-inbox-1024");
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.goto(ticket.url);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain("Pat Player");
    expect(await page.getByRole("list", { name: "Conversation" }).textContent()).toContain("My ship vanished after the jump to Orion.");
    await second.page.goto(ticket.url);
    await expect.poll(() => second.page.locator(".presence-line").textContent(), { timeout: 5000 }).toBe("Ada is viewing");
    await expect.poll(() => page.locator(".presence-line").textContent(), { timeout: 5000 }).toBe("Bob is viewing");
    await screenshot(page, "22-ticket-opened");
    await expectAccessible(page, "the ticket page");

    await page.getByRole("button", { name: "Assign to me" }).click();
    await expect.poll(() => page.locator(".ticket-facts").textContent()).toContain("Assigned to you");
    await page.getByLabel("Your reply (the player sees it)").pressSequentially("Hello Pat, we are restoring your ship.");
    await expect.poll(() => second.page.locator(".presence-line").textContent(), { timeout: 5000 }).toBe("Ada is typing…");
    await screenshot(second.page, "23-second-agent-sees-typing");
    await page.getByRole("button", { name: "Send the reply" }).click();
    await page.getByRole("list", { name: "Conversation" }).getByText("Hello Pat, we are restoring your ship.").waitFor();
    await page.getByRole("radio", { name: "Private note" }).check();
    await page.getByLabel("Your note (only agents see it)").fill("Ship id 4411, restored from the backup.");
    await page.getByRole("button", { name: "Add the note" }).click();
    const note = page.locator(".event-private_note");
    await note.waitFor();
    expect(await note.textContent()).toContain("Private note · You");
    // The other agent's page follows: the reply and the note arrive without a reload.
    await second.page.locator(".event-private_note").waitFor({ timeout: 5000 });
    await screenshot(page, "24-reply-and-note");
    await expectAccessible(page, "the ticket with a reply and a note");

    // The player's side of the conversation has the reply and never the note.
    const events = await stack.request(`/tickets/${ticket.id}/events`, { key: tenant.apiKeys.main! });
    const types = (events.body as { events: { type: string }[] }).events.map((event) => event.type);
    expect(types).toEqual(["PLAYER_MESSAGE", "AGENT_MESSAGE", "PRIVATE_NOTE"]);

    await page.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => page.locator(".ticket-facts").textContent()).toContain("Closed");
    expect(await page.getByRole("button", { name: "Send the reply" }).count()).toBe(0);
    await screenshot(page, "25-resolved");
    await page.getByRole("link", { name: "Back to the inbox" }).click();
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: /^Closed in the last 7 days/ }).click();
    const closedRow = page.getByRole("listitem").filter({ hasText: "Pat Player" });
    await closedRow.waitFor();
    await expect.poll(() => count(page, "Unassigned")).toBe("0");
    // Ada opened it: no longer unread for her.
    expect(await closedRow.getByRole("img", { name: "Unread" }).count()).toBe(0);
    expect([...first.problems, ...second.problems]).toEqual([]);
    await first.context.close();
    await second.context.close();
  }, 120_000);

  it("answers with a canned response filled in for the ticket, and applies its actions", async () => {
    // An admin writes the response through the agent API (the dashboard will have a page for it).
    const origin = base;
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin }, json: { email: dana, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    const created = await stack.request("/agent-api/canned-responses", {
      method: "POST",
      headers: { cookie, origin, "x-csrf-token": csrfToken },
      json: { name: "Ship restored", texts: { en: "Hello {{player.name}}, {{agent.name}} restored your ship (ticket #{{ticket.number}})." }, actions: { addTags: ["lost-ship"], status: "waiting" } },
    });
    expect(created.status, created.text).toBe(201);

    const ticket = await createTicket("Cid Canned", "Where is my ship?");
    const { context, page, problems } = await agentPage(ada);
    await page.goto(ticket.url);
    await page.getByLabel("Canned response").selectOption({ label: "Ship restored" });
    const number = (await page.getByRole("heading", { level: 1 }).textContent())!.match(/#(\d+)/)![1];
    await expect.poll(() => page.getByLabel("Your reply (the player sees it)").inputValue()).toBe(`Hello Cid Canned, Ada restored your ship (ticket #${number}).`);
    expect(await page.locator("#canned-actions").textContent()).toBe("Sending also adds the tags lost-ship, sets the status to Waiting.");
    await screenshot(page, "27-canned-response");
    await expectAccessible(page, "the composer with a canned response");
    await page.getByRole("button", { name: "Send the reply" }).click();
    await expect.poll(() => page.locator(".ticket-facts").textContent()).toContain("Waiting");
    expect(await page.getByRole("complementary").textContent()).toContain("lost-ship");

    // Tags from the company's definitions, and assigning to a colleague by name.
    await page.getByRole("button", { name: "Remove the tag lost-ship" }).click();
    await page.getByText("No tags yet.").waitFor();
    await page.getByLabel("Add a tag").selectOption("lost-ship");
    await page.getByRole("button", { name: "Remove the tag lost-ship" }).waitFor();
    await page.getByLabel("Assigned to").selectOption({ label: "Bob" });
    await expect.poll(() => page.locator(".ticket-facts").textContent()).toContain("Assigned to Bob");
    await screenshot(page, "29-tags-and-assignee");
    await expectAccessible(page, "the ticket with tags and an assignee");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("shows a player's scheduled deletion and cancels it after a confirmation", async () => {
    const ticket = await createTicket("Del Player", "Please keep my farm after all");
    const servicePlayerId = ((await stack.request(`/tickets?ticketId=${ticket.id}`, { key: tenant.apiKeys.main! })).body as { tickets: { servicePlayerId: string }[] }).tickets[0]!.servicePlayerId;
    expect((await stack.request("/player/schedule-deletion", { method: "POST", key: tenant.apiKeys.main!, json: { servicePlayerId } })).status).toBe(200);
    const { context, page, problems } = await agentPage(ada);
    await page.goto(ticket.url);
    await page.getByText("This player's data will be deleted on", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Cancel the deletion" }).click();
    await screenshot(page, "28-cancel-deletion-confirm");
    await expectAccessible(page, "the deletion's confirmation");
    await page.getByRole("button", { name: "Yes, cancel the deletion" }).click();
    await expect.poll(() => page.getByText("This player's data will be deleted on", { exact: false }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("moves through the list with j and k, opens with Enter and replies after r, by keyboard alone", async () => {
    for (const name of ["Kim Keys", "Lou Keys"]) await createTicket(name, `Help for ${name}`);
    const { context, page, problems } = await agentPage(ada);
    await page.goto(`${base}/app/views/unassigned`);
    await page.getByRole("listitem").filter({ hasText: "Kim Keys" }).waitFor();
    // Newest activity first: Lou, then Kim.
    expect((await page.locator(".ticket-row .player").allTextContents()).slice(0, 2)).toEqual(["Lou Keys", "Kim Keys"]);
    const focused = () => page.evaluate(() => [document.activeElement?.id ?? "", document.activeElement?.querySelector(".player")?.textContent ?? ""]);
    // Start from the first row (as Tab from the views would), then move by keys only.
    await page.locator("#ticket-row-0").focus();
    await page.keyboard.press("j");
    await expect.poll(focused).toEqual(["ticket-row-1", "Kim Keys"]);
    await page.keyboard.press("k");
    await expect.poll(focused).toEqual(["ticket-row-0", "Lou Keys"]);
    await page.keyboard.press("j");
    await expect.poll(focused).toEqual(["ticket-row-1", "Kim Keys"]);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain("Kim Keys");
    await page.keyboard.press("r");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("composer-text");
    await page.keyboard.type("Answered by keyboard.");
    // Tab reaches the composer's file button, then its send button.
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Attach files");
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Send the reply");
    await page.keyboard.press("Enter");
    await page.getByRole("list", { name: "Conversation" }).getByText("Answered by keyboard.").waitFor();
    // e resolves, once the focus has left the composer.
    await page.locator("h1").focus();
    await page.keyboard.press("e");
    await expect.poll(() => page.locator(".ticket-facts").textContent()).toContain("Closed");
    await screenshot(page, "26-keyboard-reply");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("puts the focus in the composer when r is pressed while the ticket is still loading, and keeps it there", async () => {
    const { id: ticketId } = await createTicket("Quick Quinn", "Help, quickly");
    const { context, page, problems } = await agentPage(ada);
    // The ticket's answer comes late, as on a slow connection.
    await page.route(`**/agent-api/tickets/${ticketId}`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.goto(`${base}/app/tickets/${ticketId}`);
    await page.getByRole("status").filter({ hasText: "Loading" }).waitFor();
    await page.keyboard.press("r");
    await page.getByRole("heading", { level: 1, name: /Quick Quinn/ }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("composer-text");
    // The ticket read again (a change arrives) does not take the focus back to the heading.
    await page.keyboard.type("Typing already");
    expect((await stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key: tenant.apiKeys.main!, json: { actions: [{ type: "addPrivateNote", message: "A note from elsewhere" }] } })).status).toBe(200);
    await page.getByRole("list", { name: "Conversation" }).getByText("A note from elsewhere").waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("composer-text");
    expect(await page.locator("#composer-text").inputValue()).toBe("Typing already");
    await screenshot(page, "26b-reply-focus-kept-while-loading");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
