// Merging two tickets of one player on the ticket page, end to end in headless Chromium over the
// real stack: "Merge into…" opens a modal dialog (focus kept inside, Escape closes it and gives
// focus back), the player's other open ticket is offered, the merge lands on the target with the
// source's conversation marked "Merged from #n", and the source says it was merged, with a link
// to the target; the public API lists the source as merged. Once by mouse with the player's
// other ticket, once by keyboard alone with a typed ticket number. axe on the dialog and the
// merged tickets, a screenshot of every step in .ci/out/agent-console/.
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

describe("merging tickets on the ticket page in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@studio.example`;
  const bob = `bob-${suffix}@studio.example`;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app` } });
    tenant = await stack.applyTenant({
      company: { name: "Merge Studio" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
      tags: [{ name: "billing", game: null }],
      users: [
        { ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["galaxy"] },
        { ref: "bob", name: "Bob Builder", email: bob, role: "agent", displayName: "Bob", games: ["galaxy"] },
      ],
    });
    for (const email of [ada, bob]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const agentPage = (email: string) => signedInPage(browser, base, email, PASSWORD);

  /** Two tickets of one new player: the target first (with the tags given), then the source (tagged billing). */
  async function ticketsOfOnePlayer(name: string, targetTags: string[] = []): Promise<{ target: { id: string; runningId: number }; source: { id: string; runningId: number; url: string } }> {
    const player = { id: `p-${randomUUID().slice(0, 8)}`, name, email: `${randomUUID().slice(0, 8)}@example.com`, tier: 2 };
    const create = async (message: string, tags: string[]) => {
      const created = await stack.request("/tickets", {
        method: "POST",
        key: tenant.apiKeys.main!,
        json: { gameId: tenant.games.galaxy!.id, message, language: "en", channels: ["email"], metadata: { player, tags } },
      });
      expect(created.status, created.text).toBe(200);
      const { ticketId } = created.body as { ticketId: string };
      const listed = (await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: { runningId: number; url: string }[] };
      return { id: ticketId, runningId: listed.tickets[0]!.runningId, url: listed.tickets[0]!.url };
    };
    const target = await create(`My ship vanished after the jump, ${name}.`, targetTags);
    const source = await create(`And my credits are gone too, ${name}.`, ["billing"]);
    return { target, source };
  }

  const listed = async (ticketId: string) =>
    ((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: Record<string, unknown>[] }).tickets[0];
  const insideDialog = (page: Page) => page.evaluate(() => document.activeElement?.closest("dialog") !== null && document.activeElement?.closest("dialog") !== undefined);

  it("merges a ticket into the player's other open ticket: the dialog, the target with the conversation, the source merged", async () => {
    // The target has the source's tag already: no tags_changed of the target, so only the merge's
    // own change (which names the target) can tell the other agent's page to read it again.
    const { target, source } = await ticketsOfOnePlayer("Pat Merge", ["billing"]);
    const { context, page, problems } = await agentPage(ada);
    // Another agent has the target open: the merged conversation arrives there without a reload.
    const other = await agentPage(bob);
    await other.page.goto(`${base}/app/tickets/${target.id}`);
    await expect.poll(() => other.page.getByRole("heading", { level: 1 }).textContent()).toContain(`#${target.runningId}`);
    await page.goto(source.url);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain(`#${source.runningId}`);
    await screenshot(page, "30-merge-source");

    // The dialog: opened from the actions, focus inside it, Escape closes it and focus returns.
    const opener = page.getByRole("button", { name: "Merge into…" });
    await opener.click();
    const dialog = page.getByRole("dialog", { name: `Merge #${source.runningId} into another ticket` });
    await dialog.waitFor();
    expect(await insideDialog(page)).toBe(true);
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press("Tab");
      expect(await insideDialog(page), `focus after ${i + 1} Tab`).toBe(true);
    }
    await page.keyboard.press("Shift+Tab");
    expect(await insideDialog(page)).toBe(true);
    const offered = dialog.getByRole("radio", { name: `#${target.runningId} (New)` });
    expect(await offered.isChecked()).toBe(true);
    await screenshot(page, "31-merge-dialog");
    await expectAccessible(page, "the merge dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Merge into…");

    // Merge into the offered ticket: the page shows the target.
    await opener.click();
    await dialog.getByRole("button", { name: "Merge", exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/tickets/${target.id}`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain(`#${target.runningId}`);
    const conversation = page.getByRole("list", { name: "Conversation" });
    const copy = conversation.getByRole("listitem").filter({ hasText: "And my credits are gone too" });
    await copy.waitFor();
    expect(await copy.locator(".merged-from").textContent()).toContain(`Merged from #${source.runningId}`);
    expect(await conversation.locator(".event-private_note").last().textContent()).toContain(`Merged #${source.runningId} into this ticket.`);
    expect(await page.getByRole("complementary").textContent()).toContain("billing");
    await screenshot(page, "32-merge-target");
    await other.page.locator(".merged-from").waitFor({ timeout: 5000 });
    expect(await other.page.locator(".merged-from").textContent()).toContain(`Merged from #${source.runningId}`);
    await screenshot(other.page, "32b-merge-target-live-for-another-agent");
    await expectAccessible(page, "the target ticket after the merge");

    // The source, from the copy's link: closed as merged, with a link to the target.
    await copy.getByRole("link", { name: `#${source.runningId}` }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain(`#${source.runningId}`);
    const banner = page.getByRole("note");
    await expect.poll(() => banner.textContent()).toBe(`This ticket was merged into #${target.runningId}`);
    expect(await page.locator(".ticket-facts").textContent()).toContain("Closed · merged");
    expect(await page.getByRole("button", { name: "Merge into…" }).count()).toBe(0);
    await screenshot(page, "33-merge-source-merged");
    await expectAccessible(page, "the merged source ticket");
    await banner.getByRole("link", { name: `#${target.runningId}` }).click();
    await expect.poll(() => page.url()).toBe(`${base}/app/tickets/${target.id}`);

    expect(await listed(source.id)).toMatchObject({ status: "closed", resolutionType: "merged", followUpTicketId: target.id });
    expect(await listed(target.id)).toMatchObject({ status: "new", resolutionType: null, tags: ["billing"] });
    expect([...problems, ...other.problems]).toEqual([]);
    await context.close();
    await other.context.close();
  }, 120_000);

  it("merges by a typed ticket number, by keyboard alone, and says when no ticket has that number", async () => {
    const { target, source } = await ticketsOfOnePlayer("Kim Keys");
    const { context, page, problems } = await agentPage(ada);
    await page.goto(source.url);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toContain(`#${source.runningId}`);
    await page.getByRole("button", { name: "Merge into…" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    // The offered ticket's radio has focus; the arrow moves to "by number".
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe("radio");
    await page.keyboard.press("ArrowDown");
    expect(await dialog.getByRole("radio", { name: "Another ticket, by number" }).isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("merge-number");
    await page.keyboard.type("999999");
    await page.keyboard.press("Enter");
    await expect.poll(() => dialog.getByRole("alert").textContent()).toBe("No ticket with that number in your games.");
    await screenshot(page, "34-merge-number-not-found");
    await expectAccessible(page, "the merge dialog with an error");
    await page.keyboard.press("Control+a");
    await page.keyboard.type(`#${target.runningId}`);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toBe(`${base}/app/tickets/${target.id}`);
    await page.getByRole("list", { name: "Conversation" }).getByText(`Merged #${source.runningId} into this ticket.`).waitFor();
    await screenshot(page, "35-merge-by-number-target");
    expect(await listed(source.id)).toMatchObject({ resolutionType: "merged", followUpTicketId: target.id });
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
