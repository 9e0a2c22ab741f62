// SLA clocks in headless Chromium over the real stack (docs/automation.md, "SLA policies"): an
// admin saves a policy with the agent API (a bad one is refused with its path); the sweep dates
// each ticket's next target; the inbox, sorted by the keyboard to "SLA due soonest first", lists
// the overdue ticket first with how long it is overdue; the ticket view shows its clocks, and an
// answer meets the first response; the report (agent API and Settings → SLA report) counts the
// weeks' targets met and breached. axe on every page, a screenshot of every step (280–283) in
// .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createPool } from "@support/db";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("SLA clocks in Chromium", () => {
  let bundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const adam = `adam-${suffix}@sla.example`;
  const mia = `mia-${suffix}@sla.example`;

  /** Signs a user in over the API: the cookie and CSRF token their console would have. */
  async function apiSession(email: string): Promise<Record<string, string>> {
    const signedIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: base }, json: { email, password: PASSWORD } });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1]!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    return { cookie, origin: base, "x-csrf-token": csrfToken };
  }

  async function newTicket(player: string, tier = 1): Promise<string> {
    const response = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.arena!.id, message: `The arena lobby freezes for ${player}`, language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, name: player, email: `${randomUUID()}@players.example`, tier } } },
    });
    expect(response.status, response.text).toBe(200);
    return (response.body as { ticketId: string }).ticketId;
  }

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The sweep every 200 ms: the inbox shows a ticket's due time moments after it changes.
    stack = await startStack({ gateway: { PORT: port, AGENT_CONSOLE_DIR: bundle.dir, SUPPORT_APP_URL: `${base}/app` }, env: { SUPPORT_APP_URL: `${base}/app`, SLA_SWEEP_INTERVAL_MS: "200" } });
    tenant = await stack.applyTenant({
      company: { name: "SLA Studio" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en"], environments: [{ ref: "arena-prod", name: "production" }] }],
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

  const rows = (page: Page) => page.getByRole("list", { name: /^Tickets: / }).getByRole("listitem");

  it("saves a policy, sorts the inbox by the next SLA target and shows a ticket's clocks until an answer meets them", async () => {
    // The admin's settings through the agent API: a policy counting business hours without a
    // calendar is refused at its path, nothing saved; around the clock it is saved.
    const admin = await apiSession(adam);
    const policies = [
      { id: "vip", name: "VIP", tiers: [3], targets: { firstResponseMinutes: 60 } },
      { id: "standard", name: "Standard", targets: { firstResponseMinutes: 600, resolutionMinutes: 2880 }, warnBeforeMinutes: 60 },
    ];
    const refused = await stack.request("/agent-api/settings/sla", { method: "PUT", headers: admin, json: { calendar: null, policies: [{ ...policies[0], businessHours: true }] } });
    expect(refused.status, refused.text).toBe(400);
    expect((refused.body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path)).toEqual(["/policies/0/businessHours"]);
    const saved = await stack.request("/agent-api/settings/sla", { method: "PUT", headers: admin, json: { calendar: null, policies } });
    expect(saved.status, saved.text).toBe(200);
    expect((await stack.request("/agent-api/settings/sla", { headers: await apiSession(mia) })).status).toBe(403);

    // A standard ticket, due in ten hours, and a VIP (tier 3) ticket opened two hours ago: an hour overdue.
    // The VIP ticket comes first: sorted by latest activity, the standard one would lead.
    const vip = await newTicket("Vera Vip", 3);
    const standard = await newTicket("Sam Standard");
    const pool = createPool({ url: stack.infra.databaseUrl, schema: "tickets", maxConnections: 1 });
    try {
      await pool.query("update tickets set created_at = created_at - interval '2 hours' where id = $1", [vip]);
      await pool.query("update ticket_events set created_at = created_at - interval '2 hours' where ticket_id = $1", [vip]);
    } finally {
      await pool.end();
    }

    const agent = await signedInPage(browser, base, mia, PASSWORD);
    const page = agent.page;
    await page.goto(`${base}/app/views/unassigned`);
    await rows(page).first().waitFor();
    expect(await rows(page).allTextContents()).toEqual([expect.stringContaining("Sam Standard"), expect.stringContaining("Vera Vip")]);
    // The sort by the keyboard: focus the list's order and choose with the arrow key.
    const sort = page.getByLabel("Sort");
    await sort.focus();
    await page.keyboard.press("ArrowDown");
    expect(await sort.inputValue()).toBe("sla");
    // The order is kept across reloads (the poll below reloads until the sweep dated both).
    await expect.poll(async () => {
      await page.reload();
      await rows(page).first().waitFor();
      return rows(page).allTextContents();
    }, { timeout: 20_000 }).toEqual([expect.stringMatching(/Vera Vip.*SLA overdue 1 hr/), expect.stringMatching(/Sam Standard.*SLA due in 10 hr/)]);
    expect(await sort.inputValue()).toBe("sla");
    await screenshot(page, "280-sla-inbox-sorted");
    await expectAccessible(page, "the inbox sorted by the next SLA target");

    // The overdue ticket's clocks in its view.
    await rows(page).first().getByRole("link").click();
    const clocks = page.getByRole("region", { name: "SLA: VIP" }).getByRole("listitem");
    await clocks.first().waitFor();
    expect(await clocks.allTextContents()).toEqual([expect.stringMatching(/^First response SLA overdue 1 hr \(due .+\)$/)]);
    await screenshot(page, "281-sla-ticket-breached");
    await expectAccessible(page, "a ticket with a breached SLA clock");

    // The standard ticket's first response is met by Mia's answer in time; its resolution runs on.
    await page.goto(`${base}/app/tickets/${standard}`);
    const standardClocks = page.getByRole("region", { name: "SLA: Standard" }).getByRole("listitem");
    await standardClocks.first().waitFor();
    expect(await standardClocks.allTextContents()).toEqual([expect.stringMatching(/^First response SLA due in 10 hr/), expect.stringMatching(/^Resolution SLA due in 2 days/)]);
    await page.getByLabel("Your reply (the player sees it)").fill("We are looking into the lobby.");
    await page.getByRole("button", { name: "Send the reply" }).click();
    await expect.poll(async () => {
      await page.reload();
      await standardClocks.first().waitFor();
      return standardClocks.allTextContents();
    }, { timeout: 20_000 }).toEqual([expect.stringMatching(/^First response met/), expect.stringMatching(/^Resolution SLA due in 2 days/)]);
    await screenshot(page, "282-sla-ticket-met");
    await expectAccessible(page, "a ticket whose first response met its target");

    // The report through the agent API (admins): the VIP first response breached and the standard
    // one met; the resolution is not decided yet. Two weeks: the VIP ticket, two hours older, may
    // fall in the week before (its row then still comes first).
    const report = await stack.request("/agent-api/settings/sla/report?weeks=2", { headers: admin });
    expect(report.status, report.text).toBe(200);
    expect((report.body as { rows: unknown[] }).rows).toEqual([
      { week: expect.stringMatching(/^\d{4}-W\d{2}$/), policyId: "vip", policyName: "VIP", metric: "first_response", met: 0, breached: 1, shareMet: 0 },
      { week: expect.stringMatching(/^\d{4}-W\d{2}$/), policyId: "standard", policyName: "Standard", metric: "first_response", met: 1, breached: 0, shareMet: 1 },
    ]);
    expect((await stack.request("/agent-api/settings/sla/report?weeks=30", { headers: admin })).status).toBe(400);

    // The same report in the console's settings, by keyboard: the admin chooses the weeks.
    const adminBrowser = await signedInPage(browser, base, adam, PASSWORD);
    const adminPage = adminBrowser.page;
    await adminPage.goto(`${base}/app/settings/sla-report`);
    const table = adminPage.getByRole("table", { name: "SLA targets of the last 8 weeks" });
    await table.waitFor();
    await adminPage.getByLabel("Weeks").focus();
    await adminPage.keyboard.press("ArrowUp");
    const fewer = adminPage.getByRole("table", { name: "SLA targets of the last 4 weeks" });
    await fewer.waitFor();
    expect(await fewer.locator("tbody tr").allTextContents()).toEqual([expect.stringMatching(/^\d{4}-W\d{2}VIPFirst response010%$/), expect.stringMatching(/^\d{4}-W\d{2}StandardFirst response10100%$/)]);
    await screenshot(adminPage, "283-sla-report");
    await expectAccessible(adminPage, "the SLA report");

    expect(agent.problems).toEqual([]);
    expect(adminBrowser.problems).toEqual([]);
    await agent.context.close();
    await adminBrowser.context.close();
  }, 180_000);
});
