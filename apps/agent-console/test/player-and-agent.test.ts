// The support flow from both sides in headless Chromium over the real stack: a player opens a
// ticket on the web support page; the agent sees it arrive in "Unassigned" without a reload,
// takes it, replies and adds a private note; the player's page shows the reply live and never
// the note; the agent resolves; the player rates; the agent sees the rating arrive. Screenshots
// of both sides in .ci/out/agent-console/.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

describe("a player and an agent, each in their own browser", () => {
  let consoleBundle: BuiltBundle;
  let pageBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@studio.example`;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    pageBundle = await buildBundle(fileURLToPath(new URL("../../web-support", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: { PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app`, WEB_SUPPORT_DIR: pageBundle.dir, WEB_SUPPORT_URL: `${base}/support/` },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    tenant = await stack.applyTenant({
      company: { name: "Both Sides Studio", primaryLanguage: "en" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "quest", name: "Star Quest", slug: `quest-${suffix}`, languages: ["en"], environments: [{ ref: "quest-prod", name: "production" }] }],
      users: [{ ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["quest"] }],
    });
    await stack.admin(["users", "set-password", "--email", ada], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("opens, answers, resolves and rates a ticket, each side seeing the other live", async () => {
    const agentContext = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US" });
    const agent = await agentContext.newPage();
    await agent.goto(`${base}/app/sign-in?next=%2Fviews%2Funassigned`);
    await agent.getByLabel("Email").fill(ada);
    await agent.getByLabel("Password").fill(PASSWORD);
    await agent.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => agent.url()).toBe(`${base}/app/views/unassigned`);
    await agent.getByText("No tickets here.").waitFor();

    // The player, in a 360 px in-game web view, writes to support.
    const playerContext = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: "en-US" });
    const player = await playerContext.newPage();
    const token = tenant.games.quest!.environments["quest-prod"]!.token;
    await player.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token, "player.id": `nadia-${suffix}`, "player.name": "Nadia", "player.email": `nadia-${suffix}@example.com` })}`);
    await player.getByRole("link", { name: "Contact support" }).click();
    await player.locator("#message").fill("My ship vanished after the warp.");
    await player.locator("button[type=submit]").click();
    await player.waitForURL(/#\/tickets\//, { timeout: 30_000 });
    await screenshot(player, "40-player-ticket-opened");

    // The agent sees it arrive without a reload, opens it and takes it.
    const row = agent.getByRole("listitem").filter({ hasText: "Nadia" });
    await row.waitFor({ timeout: 10_000 });
    await screenshot(agent, "41-agent-sees-new-ticket");
    await row.getByRole("link").click();
    await expect.poll(() => agent.getByRole("heading", { level: 1 }).textContent()).toContain("Nadia");
    await agent.getByRole("button", { name: "Assign to me" }).click();
    await expect.poll(() => agent.locator(".ticket-facts").textContent()).toContain("Assigned to you");
    await agent.getByLabel("Your reply (the player sees it)").fill("Which sector were you in, Nadia?");
    // While Ada writes, the player sees that she is typing (by her display name).
    await player.locator(".typing", { hasText: "Ada is typing…" }).waitFor({ timeout: 20_000 });
    await screenshot(player, "41b-player-sees-agent-typing");
    await agent.getByRole("button", { name: "Send the reply" }).click();
    await agent.getByRole("radio", { name: "Private note" }).check();
    await agent.getByLabel("Your note (only agents see it)").fill("Probably the warp bug of 4.2.");
    await agent.getByRole("button", { name: "Add the note" }).click();
    await agent.locator(".event-private_note").waitFor();

    // The player's page shows the reply live, and never the note.
    await player.locator(".bubble.theirs .text", { hasText: "Which sector were you in, Nadia?" }).waitFor({ timeout: 20_000 });
    expect(await player.getByText("Probably the warp bug").count()).toBe(0);
    // The reply names its writer as players see them (the display name, with initials), not her full name.
    const reply = player.locator(".bubble.theirs", { hasText: "Which sector were you in, Nadia?" });
    expect(await reply.locator(".who bdi").textContent()).toBe("Ada");
    expect(await reply.locator(".avatar").textContent()).toBe("A");
    expect(await player.getByText("Ada Lovelace").count()).toBe(0);
    await screenshot(player, "42-player-sees-reply");
    await expectAccessible(player, "the player's conversation");

    // Resolved by the agent; the player rates; the agent sees the rating.
    await agent.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => agent.locator(".ticket-facts").textContent()).toContain("Closed");
    await player.locator('input[name="csat"][value="5"]').waitFor({ timeout: 20_000 });
    await player.locator('input[name="csat"][value="5"]').check();
    await player.locator("#review").fill("Great help");
    await player.locator(".csat button[type=submit]").click();
    await player.getByText("Thank you for your rating!").waitFor();
    await screenshot(player, "43-player-rated");
    await agent.getByText("Rated 5 of 5", { exact: false }).waitFor({ timeout: 10_000 });
    expect(await agent.locator(".event-csat").textContent()).toContain("Great help");
    await screenshot(agent, "44-agent-sees-rating");
    await expectAccessible(agent, "the rated ticket");
    await agentContext.close();
    await playerContext.close();
  }, 120_000);
});
