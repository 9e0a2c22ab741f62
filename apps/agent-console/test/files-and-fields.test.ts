// Files and fields on the ticket page, in headless Chromium over the real stack (its S3
// included): the agent attaches an image to a reply by keyboard, sees its upload progress (the
// upload is slowed down through the DevTools protocol so that the bar can be seen), a failed
// upload and a refused file are said and removed, the reply shows the image inline and the
// player's page shows it too; then the agent sets a dropdown and a number field. Screenshots of
// every step in .ci/out/agent-console/ (60-69), axe on each page.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { deflateSync, crc32 } from "node:zlib";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { allowBrowserOrigins, freePort } from "@support/testkit";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, screenshot, signedInPage } from "./console-browser.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

/** A real PNG (a sky-to-sea gradient with a little grain, so that it stays a few hundred KB). */
function pngImage(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows: Buffer[] = [];
  let seed = 7;
  const grain = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 48) - 24;
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const sea = y > height * 0.6;
      row[1 + x * 3] = Math.max(0, Math.min(255, (sea ? 20 : 90 + (y * 120) / height) + grain()));
      row[2 + x * 3] = Math.max(0, Math.min(255, (sea ? 90 + (x * 60) / width : 150 + (y * 60) / height) + grain()));
      row[3 + x * 3] = Math.max(0, Math.min(255, (sea ? 160 : 230) + grain()));
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(rows), { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("files and fields on the ticket page", () => {
  let consoleBundle: BuiltBundle;
  let pageBundle: BuiltBundle;
  let stack: Stack;
  let tenant: TenantResult;
  let browser: Browser;
  let base: string;
  const suffix = randomUUID().slice(0, 8);
  const ada = `ada-${suffix}@studio.example`;
  const storage = new URL(process.env.S3_ENDPOINT!).origin;

  beforeAll(async () => {
    consoleBundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    pageBundle = await buildBundle(fileURLToPath(new URL("../../web-support", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: {
        PORT: port, AGENT_CONSOLE_DIR: consoleBundle.dir, SUPPORT_APP_URL: `${base}/app`, WEB_SUPPORT_DIR: pageBundle.dir, WEB_SUPPORT_URL: `${base}/support/`,
        // Both pages PUT to and load from the storage: its origin is in their CSP.
        WEB_SUPPORT_CONNECT_SRC: storage,
      },
      env: { SUPPORT_APP_URL: `${base}/app` },
    });
    await allowBrowserOrigins(stack.infra.s3, [base]);
    tenant = await stack.applyTenant({
      company: { name: "Files Studio", primaryLanguage: "en" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "quest", name: "Star Quest", slug: `quest-${suffix}`, languages: ["en"], environments: [{ ref: "quest-prod", name: "production" }] }],
      fields: [
        { key: "ship", name: "Ship", type: "dropdown", game: "quest", options: ["fighter", "explorer", "freighter"] },
        { key: "level", name: "Level", type: "number", game: null },
        { key: "refund_due", name: "Refund due", type: "date", game: null },
        { key: "vip", name: "VIP", type: "boolean", game: null },
        { key: "order", name: "Order number", type: "text", game: null },
      ],
      users: [{ ref: "ada", name: "Ada Lovelace", email: ada, role: "agent", displayName: "Ada", games: ["quest"] }],
    });
    await stack.admin(["users", "set-password", "--email", ada], `${PASSWORD}\n`);
    browser = await launchBrowser();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** The player, in a phone-sized web view, opens a ticket; its id. */
  async function playerOpensTicket(player: Page): Promise<string> {
    const token = tenant.games.quest!.environments["quest-prod"]!.token;
    await player.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token, "player.id": `nadia-${suffix}`, "player.name": "Nadia", "player.email": `nadia-${suffix}@example.com` })}`);
    await player.getByRole("link", { name: "Contact support" }).click();
    await player.locator("#message").fill("How do I get my lost freighter back?");
    await player.locator("button[type=submit]").click();
    await player.waitForURL(/#\/tickets\//, { timeout: 30_000 });
    return /#\/tickets\/([0-9a-f-]{36})/.exec(player.url())![1]!;
  }

  it("attaches an image to a reply with progress, shows it inline on both sides, and sets a dropdown and a number field", async () => {
    const playerContext = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: "en-US" });
    const player = await playerContext.newPage();
    const ticketId = await playerOpensTicket(player);

    // At 1024 px, the narrowest the console is made for. The storage is the one other origin the
    // page may reach (connect-src and img-src).
    const { context, page: agent, problems } = await signedInPage(browser, base, ada, PASSWORD, { otherOrigins: [storage] });
    await agent.setViewportSize({ width: 1024, height: 900 });
    await agent.goto(`${base}/app/tickets/${ticketId}`);
    await agent.getByRole("heading", { level: 1, name: /Nadia/ }).waitFor();
    await agent.getByLabel("Your reply (the player sees it)").fill("Here is where to find it, Nadia: the hangar screen.");

    // A type the platform does not take is said at once and removed.
    const chooser = agent.waitForEvent("filechooser");
    await agent.getByRole("button", { name: "Attach files" }).focus();
    await agent.keyboard.press("Enter");
    await (await chooser).setFiles({ name: "setup.exe", mimeType: "application/x-msdownload", buffer: Buffer.from("MZ") });
    await agent.getByText("This type of file cannot be sent.").waitFor();

    // A failed upload (the storage unreachable) is said by name, and the reply waits for it to be removed.
    await agent.route(`${storage}/**`, (route) => route.abort());
    await agent.locator("#composer-files").setInputFiles({ name: "broken.png", mimeType: "image/png", buffer: pngImage(40, 30) });
    await agent.getByText("The upload failed. Remove the file and attach it again.").waitFor();
    await screenshot(agent, "60-agent-refused-and-failed-files");
    await expectAccessible(agent, "the composer with a refused and a failed file");
    await agent.getByRole("button", { name: "Send the reply" }).click();
    await agent.getByText("Remove the files that could not be uploaded first.").waitFor();
    await agent.getByRole("button", { name: "Remove setup.exe" }).click();
    await agent.getByRole("button", { name: "Remove broken.png" }).click();
    await agent.unroute(`${storage}/**`);

    // The image, uploaded slowly enough to watch its progress.
    const cdp = await context.newCDPSession(agent);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 120 * 1024 });
    const image = pngImage(480, 320);
    await agent.locator("#composer-files").setInputFiles({ name: "hangar-screen.png", mimeType: "image/png", buffer: image });
    const progress = agent.getByRole("progressbar", { name: /Uploading hangar-screen\.png/ });
    const shownProgress = () => progress.evaluate((element) => (element as HTMLProgressElement).value).catch(() => 0);
    await expect.poll(shownProgress, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await shownProgress()).toBeLessThan(100);
    await screenshot(agent, "61-agent-image-uploading");
    // Sending while it uploads says to wait.
    await agent.getByRole("button", { name: "Send the reply" }).click();
    await agent.getByText("Wait until every file is uploaded.").waitFor();
    await agent.locator(".file-done", { hasText: "hangar-screen.png" }).waitFor({ timeout: 60_000 });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await screenshot(agent, "62-agent-image-uploaded");
    await expectAccessible(agent, "the composer with an uploaded image");

    await agent.getByRole("button", { name: "Send the reply" }).click();
    const inline = agent.locator(".event-agent_message img[alt='Image hangar-screen.png']");
    await inline.waitFor({ timeout: 15_000 });
    await expect.poll(() => inline.evaluate((element) => (element as HTMLImageElement).naturalWidth), { timeout: 15_000 }).toBe(480);
    expect(await agent.locator(".event-agent_message figcaption").textContent()).toBe("hangar-screen.png");
    expect(await agent.locator(".file-list").count()).toBe(0);
    await screenshot(agent, "63-agent-reply-with-inline-image");
    await expectAccessible(agent, "the conversation with an inline image");

    // The player's page shows the reply with the image.
    const shown = player.locator(".bubble.theirs img.attachment");
    await shown.waitFor({ timeout: 20_000 });
    await expect.poll(() => shown.evaluate((element) => (element as HTMLImageElement).naturalWidth), { timeout: 15_000 }).toBe(480);
    await screenshot(player, "64-player-sees-image");
    await expectAccessible(player, "the player's conversation with the agent's image");

    // Fields: a dropdown and a number, by keyboard and label.
    await agent.getByRole("heading", { name: "Fields" }).waitFor();
    await agent.getByLabel("Ship").selectOption("explorer");
    await agent.getByLabel("Level").fill("12");
    await screenshot(agent, "65-agent-editing-fields");
    await agent.getByLabel("Level").press("Enter");
    await expect.poll(async () => {
      const listed = (await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: { fields: Record<string, unknown> }[] };
      return listed.tickets[0]?.fields;
    }, { timeout: 10_000 }).toEqual({ ship: "explorer", level: 12 });
    await expect.poll(() => agent.getByLabel("Ship").inputValue()).toBe("explorer");
    expect(await agent.getByLabel("Level").inputValue()).toBe("12");
    // Saving again with nothing changed says so rather than sending nothing.
    await agent.getByRole("button", { name: "Save the fields" }).click();
    await agent.getByText("Nothing changed.").waitFor();
    await screenshot(agent, "66-agent-fields-saved");
    await expectAccessible(agent, "the ticket with its fields set");

    expect(problems).toEqual([]);
    await context.close();
    await playerContext.close();
  }, 180_000);
});
