// The web support page end to end in headless Chromium, served by the real gateway in front of
// the whole backend (the gateway's test stack): opened through GET /support/sessions/redirect
// on a resource, the article, the home page, a ticket from the contact form with an image and
// the game's contact-form collector, an agent reply arriving without a reload, the player's
// answer, the resolution and the rating; the same in Arabic in a 360 px web view; an expired
// and an unknown session. axe-core checks every kind of page; a screenshot of every step goes
// to .ci/out/web-support/.
import { mkdir } from "node:fs/promises";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { deflateSync, crc32 } from "node:zlib";
import { createDb, sql, type Kysely } from "@support/db";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { allowBrowserOrigins, freePort } from "@support/testkit";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, expectTextContrast } from "@support/testkit/accessibility";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";

const SCREENSHOTS = fileURLToPath(new URL("../../../.ci/out/web-support/", import.meta.url));

/** The contact-form collector both games share. */
const contactCollector = {
  ref: "contact",
  title: "About your problem",
  contactForm: true,
  fields: [
    { key: "platform", label: "Platform", type: "DROPDOWN", options: ["PC", "Mobile"], required: true },
    { key: "level", label: "Level reached", type: "TEXT", required: false },
  ],
};

/** Star Night: the game's look is dark (its tenant-file branding), in English, Japanese and French. */
const nightGame = {
  ref: "night",
  name: "Star Night",
  slug: "star-night",
  languages: ["en", "ja", "fr"],
  branding: { accentColor: "#f59e0b", colorScheme: "dark" },
  environments: [
    {
      ref: "night-production",
      name: "production",
      announcement: { shortContent: { en: "Night servers are back online", ja: "夜のサーバーが復旧しました", fr: "Les serveurs de nuit sont de retour" }, longContent: null },
    },
  ],
  resources: [
    {
      key: "getting-started",
      title: { en: "Getting started", ja: "はじめに", fr: "Bien démarrer" },
      body: {
        en: "Press **Start** to play.\n\n- Pick a ship\n- Fly\n\n<script>window.__pwned = true</script>\n\n<img src=x onerror=\"window.__pwned = true\">",
        ja: "**スタート**を押して遊びます。\n\n- 船を選ぶ\n- 飛ぶ\n\n<script>window.__pwned = true</script>",
        fr: "Appuyez sur **Démarrer** pour jouer.\n\n- Choisissez un vaisseau\n- Volez\n\n<script>window.__pwned = true</script>",
      },
    },
    { key: "billing", title: { en: "Payments", ja: "お支払い", fr: "Paiements" }, body: { en: "Payments go through the store.", ja: "お支払いはストアで行います。", fr: "Les paiements passent par la boutique." } },
  ],
  collectors: [contactCollector],
};

const tenant = {
  company: { name: "Web Support Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "main" }],
  games: [
    nightGame,
    {
      ref: "quest",
      name: "Star Quest",
      slug: "star-quest",
      languages: ["en", "de", "ja", "ar"],
      environments: [
        {
          ref: "quest-production",
          name: "production",
          announcement: { shortContent: { en: "Servers are back online", ar: "عادت الخوادم إلى العمل" }, longContent: null },
        },
      ],
      resources: [
        {
          key: "getting-started",
          title: { en: "Getting started", ar: "البداية" },
          body: {
            en: "Press **Start** to play.\n\n- Pick a ship\n- Fly\n\n<script>window.__pwned = true</script>\n\n<img src=x onerror=\"window.__pwned = true\">",
            ar: "اضغط **ابدأ** للعب.\n\n- اختر سفينة\n- طِر\n\n<script>window.__pwned = true</script>",
          },
        },
        { key: "billing", title: { en: "Payments", ar: "المدفوعات" }, body: { en: "Payments go through the store." } },
      ],
      collectors: [contactCollector],
    },
  ],
};

/** A small valid PNG (a red square), for the attachment. */
function png(size = 24): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3, Buffer.from([220, 40, 40]))]);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(pixels)), chunk("IEND", Buffer.alloc(0))]);
}

describe("the web support page in a browser", () => {
  let stack: Stack;
  let bundle: BuiltBundle;
  let browser: Browser;
  let a: TenantResult;
  let key: string;
  let db: Kysely<unknown>;
  let base: string;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({
      gateway: {
        PORT: port,
        WEB_SUPPORT_URL: `${base}/support/`,
        WEB_SUPPORT_DIR: bundle.dir,
        // The bucket the test infrastructure resolved (the vitest global setup exports it).
        WEB_SUPPORT_CONNECT_SRC: process.env.S3_ENDPOINT ? new URL(process.env.S3_ENDPOINT).origin : "",
      },
    });
    // The page uploads and downloads straight from the bucket: it must allow the page's origin.
    await allowBrowserOrigins(stack.infra.s3, [base]);
    a = await stack.applyTenant(tenant);
    key = a.apiKeys.main!;
    db = createDb({ url: stack.infra.databaseUrl, schema: "players", maxConnections: 1 });
    browser = await launchBrowser();
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await db?.destroy();
    await stack?.stop();
  });

  const token = () => a.games.quest!.environments["quest-production"]!.token;
  const nightToken = () => a.games.night!.environments["night-production"]!.token;
  const actions = (ticketId: string, list: unknown[]) => stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key, json: { actions: list } });

  async function newPage(
    viewport: { width: number; height: number },
    options: { expectForbidden?: boolean; expectRefusedCode?: boolean } = {},
  ): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport, locale: "en-US" });
    const page = await context.newPage();
    const problems: string[] = [];
    // Any CSP violation, script error or request to another origin than the gateway and the bucket fails the test.
    // Failed answers are recorded with their address (the console line has none); the expired page's 403 is expected.
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
    });
    page.on("response", (response) => {
      const expected = (options.expectForbidden && response.status() === 403) ||
        (options.expectRefusedCode && response.status() === 400 && response.url().endsWith("/player-api/verification/email/confirm"));
      if (response.status() >= 400 && !expected) problems.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => {
      const origin = new URL(request.url()).origin;
      if (!request.url().startsWith("blob:") && origin !== base && origin !== new URL(stack.infra.s3.endpoint).origin) problems.push(`third-party request: ${request.url()}`);
    });
    return { context, page, problems };
  }

  /** The whole page; `viewport` only what the screen shows (where something stays at the screen's foot). */
  async function screenshot(page: Page, name: string, what: "page" | "viewport" = "page"): Promise<void> {
    await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: what === "page" });
  }

  async function apiEvents(ticketId: string): Promise<{ type: string; attachments?: unknown[]; fields?: unknown[] }[]> {
    const response = await stack.request(`/tickets/${ticketId}/events`, { key });
    expect(response.status, response.text).toBe(200);
    return (response.body as { events: { type: string }[] }).events;
  }

  async function apiTicket(ticketId: string): Promise<{ status: string; csatScore: number | null; csatReview: string | null }> {
    const response = await stack.request(`/tickets?ticketId=${ticketId}`, { key });
    return (response.body as { tickets: { status: string; csatScore: number | null; csatReview: string | null }[] }).tickets[0]!;
  }

  /** The whole journey of one player; `texts` are what the page must show in that language. */
  async function journey(options: {
    name: string;
    language: string;
    viewport: { width: number; height: number };
    /** The dark game (Star Night) instead of the light one (Star Quest). */
    dark?: boolean;
    texts: { resourceTitle: string; home: string; announcement: string; contact: string; send: string; closed: string; thanks: string };
  }): Promise<void> {
    const { name, language, viewport, texts, dark = false } = options;
    const gameName = dark ? "Star Night" : "Star Quest";
    const shot = (step: string) => screenshot(page, `${name}-${step}`);
    const { context, page, problems } = await newPage(viewport);
    // Every text readable on its background: axe's own contrast rule skips right-to-left scripts,
    // and a dark page must prove its palette as the light one did.
    const checkContrast = language === "ar" || dark;
    try {
      const query = new URLSearchParams({ token: dark ? nightToken() : token(), language, resource: "getting-started", "player.id": `player-${name}`, "player.name": "Nadia", "player.email": `${name}@example.com` });
      await page.goto(`${base}/support/sessions/redirect?${query}`);

      // 1. The resource the session was opened on; the code left the address bar for sessionStorage.
      await page.getByRole("heading", { level: 1, name: texts.resourceTitle }).waitFor();
      expect(page.url()).not.toContain("sid=");
      expect(await page.evaluate(() => sessionStorage.getItem("support.sid"))).toMatch(/.{16,}/);
      expect(await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }))).toEqual({ lang: language, dir: language === "ar" ? "rtl" : "ltr" });
      await expect.poll(() => page.locator(".markdown strong").count()).toBe(1);
      expect(await page.locator(".markdown li").count()).toBe(2);
      expect(await page.locator(".markdown script, .markdown img").count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
      // The game's scheme from its branding: a dark page (dark background, light text) or a light one.
      const look = await page.evaluate(() => ({ scheme: document.documentElement.dataset.scheme, background: getComputedStyle(document.documentElement).backgroundColor, accent: document.documentElement.style.getPropertyValue("--accent") }));
      expect(look.scheme).toBe(dark ? "dark" : "light");
      const [red = 0, green = 0, blue = 0] = (look.background.match(/\d+/g) ?? []).map(Number);
      expect((red + green + blue) / 3 < 80, `${name} background ${look.background}`).toBe(dark);
      if (dark) expect(look.accent).toBe("#f59e0b");
      await shot("01-resource");
      await expectAccessible(page, `${name} resource`);

      // 2. Home: game, announcement, resources, no tickets yet, contact.
      await page.locator('a[href="#/"]').first().click();
      await page.getByRole("heading", { level: 1, name: texts.home }).waitFor();
      await page.getByText(texts.announcement).waitFor();
      await page.getByText(gameName).first().waitFor();
      expect(await page.locator('a[href="#/resources/billing"]').count()).toBe(1);
      if (language === "ar") {
        // An article written only in English opens in English throughout (never an Arabic title over an English body), marked as such.
        await page.locator('a[href="#/resources/billing"]').click();
        await page.getByRole("heading", { level: 1, name: "Payments" }).waitFor();
        expect(await page.locator("h1").evaluate((h1: HTMLElement) => ({ lang: h1.lang, dir: h1.dir }))).toEqual({ lang: "en", dir: "ltr" });
        expect(await page.locator(".markdown").evaluate((body: HTMLElement) => ({ lang: body.lang, text: body.textContent?.trim() }))).toEqual({ lang: "en", text: "Payments go through the store." });
        await shot("02b-article-in-english");
        await page.locator('a[href="#/"]').first().click();
        await page.locator("#tickets-title").waitFor();
      }
      await page.locator("#tickets-title").waitFor();
      await shot("02-home");
      await expectAccessible(page, `${name} home`);
      if (checkContrast) await expectTextContrast(page, `${name} home`);

      // 3. The contact form: a message, an image attachment, the collector's fields; by keyboard where it matters.
      await page.getByRole("link", { name: texts.contact }).click();
      await page.locator("#message").waitFor();
      // The admin's labels keep their own direction (isolated); every optional field is marked the same way.
      expect(await page.locator("label[for=field-platform] bdi").textContent()).toBe("Platform");
      expect(await page.locator("label[for=attachments] .muted, label[for=field-level] .muted").count()).toBe(2);
      // Sent empty: the required fields say so; each error goes as soon as its field is filled.
      await page.locator("button[type=submit]").click();
      await page.locator("#message-error").waitFor();
      await page.locator("#field-platform-error").waitFor();
      await shot("03a-contact-form-errors");
      await page.locator("#message").focus();
      await page.keyboard.type(`My ship vanished (${name}) <b>not bold</b>`);
      await expect.poll(() => page.locator("#message-error").count()).toBe(0);
      expect(await page.locator("#field-platform-error").count()).toBe(1);
      await page.locator("#attachments").setInputFiles({ name: "screenshot-of-the-ship-that-vanished-in-sector-seven.png", mimeType: "image/png", buffer: png() });
      // The remove button stays on its file's row, however long the name.
      const row = await page.locator(".files li").first().evaluate((item) => {
        const name = item.querySelector(".file-name")!.getBoundingClientRect();
        const remove = item.querySelector(".remove")!.getBoundingClientRect();
        return { nameTop: name.top, nameBottom: name.bottom, removeMiddle: (remove.top + remove.bottom) / 2 };
      });
      expect(row.removeMiddle).toBeGreaterThan(row.nameTop);
      expect(row.removeMiddle).toBeLessThan(row.nameBottom);
      await page.locator("#field-platform").selectOption("PC");
      await expect.poll(() => page.locator("#field-platform-error").count()).toBe(0);
      await page.locator("#field-level").fill("42");
      await shot("03-contact-form");
      await expectAccessible(page, `${name} contact form`);
      if (checkContrast) await expectTextContrast(page, `${name} contact form`);
      await page.locator("button[type=submit]").click();
      await page.waitForURL(/#\/tickets\//, { timeout: 30_000 });
      const ticketId = decodeURIComponent(page.url().split("#/tickets/")[1]!);
      await page.locator(".bubble.mine .text", { hasText: `My ship vanished (${name})` }).waitFor();
      // The player's own text stays text: the <b> is shown, not interpreted.
      expect(await page.locator(".bubble.mine .text b").count()).toBe(0);
      await expect.poll(() => page.locator(".bubble.mine img.attachment").evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth), { timeout: 20_000 }).toBe(24);
      await page.locator(".bubble.form dd", { hasText: "PC" }).waitFor();
      await shot("04-ticket-opened");

      const opened = await apiEvents(ticketId);
      expect(opened.find((event) => event.type === "PLAYER_MESSAGE")?.attachments).toHaveLength(1);
      expect(opened.find((event) => event.type === "COLLECTOR_RESULT")?.fields).toEqual([
        expect.objectContaining({ key: "platform", label: "Platform", type: "DROPDOWN", value: ["PC"] }),
        expect.objectContaining({ key: "level", label: "Level reached", type: "TEXT", value: "42" }),
      ]);

      // 4. An agent's reply (and a private note, never shown) arrives without a reload.
      await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
      const sentAt = Date.now();
      const replied = await actions(ticketId, [
        { type: "addPrivateNote", message: "internal: probably the warp bug" },
        { type: "sendMessage", message: "Which sector were you in? <i>x</i>" },
        { type: "setStatus", status: "waiting" },
      ]);
      expect(replied.status, replied.text).toBe(200);
      await page.locator(".bubble.theirs .text", { hasText: "Which sector were you in?" }).waitFor({ timeout: 20_000 });
      console.log(`${name}: agent reply shown ${Date.now() - sentAt} ms after the action was answered`);
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      expect(await page.getByText("probably the warp bug").count()).toBe(0);
      expect(await page.locator(".bubble.theirs .text i").count()).toBe(0);
      await expect.poll(() => page.locator("#live").textContent()).toContain("Which sector were you in?");
      await shot("05-agent-reply");
      await expectAccessible(page, `${name} conversation`);
      if (checkContrast) await expectTextContrast(page, `${name} conversation`);

      // 5. The player answers.
      await page.locator("#reply").fill("Sector 7");
      await page.locator(".composer button[type=submit]").click();
      await page.locator(".bubble.mine .text", { hasText: "Sector 7" }).waitFor();
      await expect.poll(async () => (await apiTicket(ticketId)).status).not.toBe("waiting");
      await shot("06-answered");

      // 6. Resolved: the conversation closes and asks for a rating.
      expect((await actions(ticketId, [{ type: "sendMessage", message: "Fixed, fly safe!" }, { type: "resolveTicket" }])).status).toBe(200);
      await page.getByRole("heading", { level: 2, name: texts.closed }).waitFor({ timeout: 20_000 });
      await page.locator(".bubble.theirs .text", { hasText: "Fixed, fly safe!" }).waitFor();
      expect(await page.locator("#reply").count()).toBe(0);
      await shot("07-resolved");
      await expectAccessible(page, `${name} closed conversation`);
      if (checkContrast) await expectTextContrast(page, `${name} closed conversation`);

      // 7. Rating by keyboard: the 4 of the radio group, a review, send. The five scores share one row.
      const scores = await page.locator(".score").evaluateAll((labels) => labels.map((label) => label.getBoundingClientRect()).map((box) => ({ top: Math.round(box.top), left: box.left, right: box.right })));
      expect(new Set(scores.map((score) => score.top)).size, `score rows at ${viewport.width} px`).toBe(1);
      expect(scores.every((score) => score.left >= 0 && score.right <= viewport.width), `scores inside the ${viewport.width} px view: ${JSON.stringify(scores)}`).toBe(true);
      await page.locator('input[name="csat"][value="4"]').focus();
      await page.keyboard.press("Space");
      await page.locator("#review").fill("Quick and friendly");
      await page.locator(".csat button[type=submit]").click();
      await page.getByText(texts.thanks).waitFor();
      await expect.poll(async () => (await apiTicket(ticketId)).csatScore).toBe(4);
      expect((await apiTicket(ticketId)).csatReview).toBe("Quick and friendly");
      await shot("08-rated");

      // 8. Home lists the conversation.
      await page.locator('a[href="#/"]').first().click();
      await page.locator(`a[href="#/tickets/${ticketId}"]`).waitFor();
      await shot("09-home-with-ticket");

      if (viewport.width <= 360) {
        // Nothing wider than the web view: no sideways scrolling.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      }
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }

  it("opens on a resource, opens a ticket from the contact form and follows it to a rating (English, desktop)", async () => {
    await journey({
      name: "en-desktop",
      language: "en",
      viewport: { width: 1280, height: 900 },
      texts: {
        resourceTitle: "Getting started",
        home: "Support",
        announcement: "Servers are back online",
        contact: "Contact support",
        send: "Send",
        closed: "This conversation is closed.",
        thanks: "Thank you for your rating!",
      },
    });
  }, 240_000);

  it("does the same in Arabic, right to left, in a 360 px web view", async () => {
    await journey({
      name: "ar-360",
      language: "ar",
      viewport: { width: 360, height: 740 },
      texts: {
        resourceTitle: "البداية",
        home: "الدعم",
        announcement: "عادت الخوادم إلى العمل",
        contact: "تواصل مع الدعم",
        send: "إرسال",
        closed: "هذه المحادثة مغلقة.",
        thanks: "شكرًا لتقييمك!",
      },
    });
  }, 240_000);

  it("does the same in Japanese on a dark game, in a 360 px web view", async () => {
    await journey({
      name: "ja-360-dark",
      language: "ja",
      dark: true,
      viewport: { width: 360, height: 740 },
      texts: {
        resourceTitle: "はじめに",
        home: "サポート",
        announcement: "夜のサーバーが復旧しました",
        contact: "サポートに問い合わせる",
        send: "送信",
        closed: "このお問い合わせは終了しました。",
        thanks: "評価ありがとうございました！",
      },
    });
  }, 240_000);

  it("does the same in French on a dark game, on a desktop", async () => {
    await journey({
      name: "fr-desktop-dark",
      language: "fr",
      dark: true,
      viewport: { width: 1280, height: 900 },
      texts: {
        resourceTitle: "Bien démarrer",
        home: "Assistance",
        announcement: "Les serveurs de nuit sont de retour",
        contact: "Contacter l'assistance",
        send: "Envoyer",
        closed: "Cette conversation est fermée.",
        thanks: "Merci pour votre note !",
      },
    });
  }, 240_000);

  it("lets a player who came with an email confirm it with the mailed code, and then shows the earlier conversations", async () => {
    const email = "mail-player@example.com";
    const earlier = await stack.request("/tickets", {
      method: "POST", key,
      json: { gameId: a.games.quest!.id, message: "My purchase never arrived", language: "en", channels: ["email"], metadata: { player: { email } } },
    });
    expect(earlier.status, earlier.text).toBe(200);
    const earlierId = (earlier.body as { ticketId: string }).ticketId;

    const { context, page, problems } = await newPage({ width: 1280, height: 900 }, { expectRefusedCode: true });
    try {
      await page.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token: token(), "player.email": email })}`);
      await page.getByRole("heading", { level: 1, name: "Support" }).waitFor();

      // 1. Only this page's conversations (none); the panel says why and offers the code.
      await page.getByText("You have no conversations yet.").waitFor();
      await page.getByRole("heading", { level: 3, name: "Earlier conversations" }).waitFor();
      expect(await page.locator(`a[href="#/tickets/${earlierId}"]`).count()).toBe(0);
      await screenshot(page, "verify-01-offer");
      await expectAccessible(page, "verification offer");

      // 2. By keyboard: the button, Enter; the code goes to the player's mailbox.
      const mailsBefore = stack.smtp.mails.length;
      await page.getByRole("button", { name: "Send me a code" }).focus();
      await page.keyboard.press("Enter");
      await page.getByText("We sent a 6-digit code to m******r@example.com").waitFor();
      // The address is isolated from the sentence's direction (right-to-left languages) in a <bdi>.
      expect(await page.locator(".verify bdi.address").allTextContents()).toEqual(["m******r@example.com"]);
      // The code field has the focus: the player types right away.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("verify-code");
      const mail = await stack.smtp.waitForMail(email, { after: mailsBefore });
      const code = /\b(\d{6})\b/.exec(mail.text)![1]!;
      await screenshot(page, "verify-02-code-sent");
      await expectAccessible(page, "verification code form");

      // 3. A wrong code: an alert, nothing shown.
      await page.keyboard.type(code === "000000" ? "111111" : "000000");
      await page.keyboard.press("Enter");
      await page.getByRole("alert").filter({ hasText: "This code is not right" }).waitFor();
      expect(await page.locator(`a[href="#/tickets/${earlierId}"]`).count()).toBe(0);
      await screenshot(page, "verify-03-wrong-code");
      await expectAccessible(page, "wrong code");

      // 4. The right code: the earlier conversation appears, the panel goes.
      await page.locator("#verify-code").fill(code);
      await page.keyboard.press("Enter");
      await page.locator(`a[href="#/tickets/${earlierId}"]`).waitFor();
      await expect.poll(() => page.locator("#verify-code").count()).toBe(0);
      await screenshot(page, "verify-04-confirmed");
      await expectAccessible(page, "confirmed email");
      await page.locator(`a[href="#/tickets/${earlierId}"]`).click();
      await page.locator(".bubble .text", { hasText: "My purchase never arrived" }).waitFor();
      await screenshot(page, "verify-05-earlier-conversation");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }

    // A player with only an unsigned id cannot prove it here: the page says what to do.
    const idOnly = await newPage({ width: 360, height: 740 });
    try {
      await idOnly.page.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token: token(), language: "de", "player.id": "someone-else" })}`);
      await idOnly.page.getByRole("heading", { level: 3, name: "Frühere Unterhaltungen" }).waitFor();
      await idOnly.page.getByText("öffne den Support im Spiel, während du angemeldet bist").waitFor();
      expect(await idOnly.page.getByRole("button", { name: "Code senden" }).count()).toBe(0);
      await screenshot(idOnly.page, "verify-06-id-only-de");
      await expectAccessible(idOnly.page, "id-only verification notice");
      expect(idOnly.problems).toEqual([]);
    } finally {
      await idOnly.context.close();
    }
  }, 180_000);

  it.each([["light", false], ["dark", true]] as const)("keeps a long conversation alive at 360 px (%s): the list previews it and counts unread answers, it opens at its newest message, new ones scroll in or are counted, it waits offline", async (scheme, dark) => {
    const opened = await stack.request("/support/sessions", { method: "POST", json: { token: dark ? nightToken() : token(), language: "en", player: { id: `chatty-player-${scheme}` } } });
    expect(opened.status, opened.text).toBe(200);
    const code = (opened.body as { sessionCode: string }).sessionCode;
    const asPlayer = { authorization: `Session ${code}` };
    const created = await stack.request("/player-api/tickets", { method: "POST", headers: asPlayer, json: { message: "My hangar is empty" } });
    expect(created.status, created.text).toBe(200);
    const ticketId = (created.body as { ticketId: string }).ticketId;
    const steps = Array.from({ length: 14 }, (_, index) => ({ type: "sendMessage", message: `Step ${index + 1}: please check the hangar settings, then restart the game and look again.` }));
    expect((await actions(ticketId, [...steps, { type: "sendMessage", message: "Which   server\ndo you play on?" }])).status).toBe(200);
    const listed = async () => ((await stack.request("/player-api/tickets", { headers: asPlayer })).body as { tickets: { id: string; unread: number; lastMessage: unknown }[] }).tickets.find((ticket) => ticket.id === ticketId)!;
    expect(await listed()).toMatchObject({ unread: 15, lastMessage: { from: "agent", preview: "Which server do you play on?", hasAttachments: false } });

    const { context, page, problems } = await newPage({ width: 360, height: 740 });
    const lastBubbleInView = () =>
      page.locator(".chat > li").last().evaluate((item) => {
        const box = item.getBoundingClientRect();
        return box.top >= 0 && box.top < innerHeight;
      });
    try {
      // The list: the agent's question asks the player, its preview, and 15 unread answers.
      await page.goto(`${base}/support/?sid=${encodeURIComponent(code)}`);
      const entry = page.locator(".conversations li", { has: page.locator(`a[href="#/tickets/${ticketId}"]`) });
      await entry.locator(".unread-count", { hasText: "15 new" }).waitFor();
      expect(await entry.locator(".status").textContent()).toBe("Waiting for your answer");
      expect(await entry.locator(".preview").textContent()).toBe("Support: Which server do you play on?");
      await screenshot(page, `${scheme}-chat-01-list-unread`);
      await expectAccessible(page, `${scheme} home with an unread conversation`);
      if (dark) await expectTextContrast(page, "dark home with an unread conversation");

      // Opened: at its newest message, with the state the player reads; the answers are read now.
      await entry.locator("a").click();
      await page.locator(".bubble.theirs .text", { hasText: "do you play on?" }).waitFor();
      await expect.poll(lastBubbleInView).toBe(true);
      expect(await page.locator("#ticket-status").textContent()).toBe("Waiting for your answer");
      // The fifteen answers written in a row show as one group: one name and time, for the eye.
      expect(await page.locator(".bubble.theirs").count()).toBe(15);
      expect(await page.locator(".bubble.theirs .who:not(.visually-hidden)").count()).toBe(1);
      await expect.poll(async () => (await listed()).unread).toBe(0);
      await screenshot(page, `${scheme}-chat-02-opens-at-newest`);

      // Read further up: a new answer is counted on a button, which brings it into view.
      await page.evaluate(() => scrollTo({ top: 0 }));
      expect((await actions(ticketId, [{ type: "sendMessage", message: "Are you still there?" }])).status).toBe(200);
      await page.getByRole("button", { name: "New messages below (1)" }).waitFor({ timeout: 20_000 });
      expect(await lastBubbleInView()).toBe(false);
      // On the phone the answer box stays at the foot of the screen, the cue just above it.
      const foot = await page.evaluate(() => {
        const box = document.querySelector(".composer")!.getBoundingClientRect();
        const cue = document.querySelector(".new-messages")!.getBoundingClientRect();
        return { composerBottom: Math.round(box.bottom), composerTop: box.top, cueBottom: cue.bottom, height: innerHeight, composerHeight: box.height };
      });
      expect(foot.composerBottom).toBe(foot.height);
      expect(foot.cueBottom).toBeLessThanOrEqual(foot.composerTop);
      expect(foot.composerHeight, "the answer box takes at most a third of the screen").toBeLessThanOrEqual(foot.height / 3);
      await screenshot(page, `${scheme}-chat-03-new-message-cue`, "viewport");
      await expectAccessible(page, `${scheme} conversation with the new-message cue`);
      if (dark) await expectTextContrast(page, "dark conversation with the new-message cue");
      await page.getByRole("button", { name: "New messages below (1)" }).click();
      await expect.poll(lastBubbleInView).toBe(true);
      expect(await page.getByRole("button", { name: /New messages below/ }).count()).toBe(0);

      // At the bottom: the next answer scrolls into view by itself.
      expect((await actions(ticketId, [{ type: "sendMessage", message: "We found your ship." }])).status).toBe(200);
      await page.locator(".bubble.theirs .text", { hasText: "We found your ship." }).waitFor({ timeout: 20_000 });
      await expect.poll(lastBubbleInView).toBe(true);
      expect(await page.getByRole("button", { name: /New messages below/ }).count()).toBe(0);
      await expect.poll(async () => (await listed()).unread).toBe(0);

      // Offline: the page says so; a message waits, marked, and goes out once the connection is back.
      await context.setOffline(true);
      await page.locator(".connection", { hasText: "You are offline." }).waitFor();
      await page.locator("#reply").fill("Written on the train");
      await page.locator(".composer button[type=submit]").click();
      await page.locator(".bubble.pending", { hasText: "Written on the train" }).waitFor();
      expect(await page.locator(".bubble.pending").textContent()).toContain("Not sent yet");
      expect(await page.locator("#reply").inputValue()).toBe("");
      await screenshot(page, `${scheme}-chat-03b-offline-message-waits`, "viewport");
      await expectAccessible(page, `${scheme} conversation offline with a waiting message`);
      if (dark) await expectTextContrast(page, "dark conversation offline with a waiting message");
      await context.setOffline(false);
      await page.locator(".bubble.mine:not(.pending) .text", { hasText: "Written on the train" }).waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator(".bubble.pending").count()).toBe(0);
      await expect.poll(() => page.locator(".connection").count(), { timeout: 20_000 }).toBe(0);
      expect((await apiEvents(ticketId)).filter((event) => (event as { message?: string }).message === "Written on the train")).toHaveLength(1);

      // The player answers: the state is the agents' turn again, and the list says so.
      await page.locator("#reply").fill("EU-West");
      await page.locator(".composer button[type=submit]").click();
      await page.locator(".bubble.mine .text", { hasText: "EU-West" }).waitFor();
      await expect.poll(() => page.locator("#ticket-status").textContent()).not.toBe("Waiting for your answer");
      await page.locator('a[href="#/"]').first().click();
      await entry.locator(".preview", { hasText: "You: EU-West" }).waitFor();
      expect(await entry.locator(".unread-count").count()).toBe(0);
      await screenshot(page, `${scheme}-chat-04-list-read`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it("tells an expired session from a made-up code and a refused link, and never shows the player JSON", async () => {
    const response = await stack.request("/support/sessions", { method: "POST", json: { token: token(), language: "de", player: { id: "late-player" } } });
    expect(response.status, response.text).toBe(200);
    const code = (response.body as { sessionCode: string }).sessionCode;
    const codeHash = createHash("sha256").update(code).digest("hex");

    const { context, page, problems } = await newPage({ width: 360, height: 740 }, { expectForbidden: true });
    try {
      // A code that worked in this tab and then expired: "expired", with a way to try again.
      await page.goto(`${base}/support/?sid=${encodeURIComponent(code)}`);
      await page.locator("#tickets-title").waitFor();
      await sql`update players.support_sessions set expires_at = now() - interval '1 second' where code_hash = ${codeHash}`.execute(db);
      // The gateway remembers a live session for a few seconds: the page is reloaded until it hears of the expiry.
      await expect
        .poll(async () => {
          await page.reload();
          await page.locator("main h1").waitFor();
          return page.locator("main h1").textContent();
        }, { timeout: 30_000, interval: 1_000 })
        .toBe("This support link has expired");
      expect(page.url()).not.toContain("sid=");
      await page.getByText("Messages you already sent have reached the support team.").waitFor();
      await page.getByRole("button", { name: "Try again" }).waitFor();
      await screenshot(page, "expired");
      await expectAccessible(page, "expired page");

      // A code the service never gave out: "not valid", not "expired".
      await page.evaluate(() => sessionStorage.clear());
      await page.goto(`${base}/support/?sid=${encodeURIComponent("made-up-code-0123456789abcdef")}`);
      await page.getByRole("heading", { level: 1, name: "This support link is not valid" }).waitFor();
      // Nothing was sent with a code that never worked: the page does not speak of sent messages.
      expect(await page.locator("main").textContent()).not.toContain("Messages you already sent");
      await screenshot(page, "unknown-code");

      await page.evaluate(() => sessionStorage.clear());
      await page.goto(`${base}/support/`);
      await page.getByRole("heading", { level: 1, name: "This support link is not valid" }).waitFor();
      await screenshot(page, "unknown");

      // Links the gateway refuses, opened as a browser opens them: the page explains, in the player's language.
      const refusals: [Record<string, string>, string][] = [
        [{ token: "00000000-0000-4000-8000-000000000000" }, "The game's link to support is not set up right."],
        [{ token: token(), resource: "no-such-article" }, "The help article this link leads to does not exist."],
        [{ token: token(), language: "not a language" }, "This link to support is not valid."],
      ];
      for (const [query, text] of refusals) {
        await page.goto(`${base}/support/sessions/redirect?${new URLSearchParams(query)}`);
        await page.getByRole("heading", { level: 1, name: "Support could not be opened" }).waitFor();
        await page.getByText(text).waitFor();
        expect(await page.locator("body").textContent()).not.toContain('"code"');
        expect(await page.locator("main").textContent()).not.toContain("Messages you already sent");
      }
      await screenshot(page, "refused-link");
      await expectAccessible(page, "refused link page");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }

    // The same refusal in Arabic, right to left, on a device set to dark: without a session (no
    // game's look known) the page follows the device.
    const arabic = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: "ar", colorScheme: "dark" });
    try {
      const page = await arabic.newPage();
      await page.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token: "00000000-0000-4000-8000-000000000000" })}`);
      await page.getByRole("heading", { level: 1, name: "تعذّر فتح الدعم" }).waitFor();
      expect(await page.evaluate(() => document.documentElement.dir)).toBe("rtl");
      expect(await page.evaluate(() => ({ scheme: document.documentElement.dataset.scheme, background: getComputedStyle(document.documentElement).backgroundColor }))).toEqual({ scheme: "system", background: "rgb(21, 24, 29)" });
      await expectAccessible(page, "refused link page, Arabic, dark device");
      await expectTextContrast(page, "refused link page, Arabic, dark device");
      await screenshot(page, "refused-link-ar-dark");
    } finally {
      await arabic.close();
    }

    // A French player gets a French page, marked as French.
    const french = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: "fr-FR" });
    try {
      const page = await french.newPage();
      await page.goto(`${base}/support/sessions/redirect?${new URLSearchParams({ token: token(), language: "fr" })}`);
      await page.getByRole("heading", { level: 1, name: "Assistance" }).waitFor();
      expect(await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }))).toEqual({ lang: "fr", dir: "ltr" });
      await page.getByRole("link", { name: "Contacter l'assistance" }).waitFor();
      await page.getByRole("heading", { level: 2, name: "Vos conversations" }).waitFor();
      // The game has no French texts: its English announcement and article titles say they are English.
      expect(await page.locator(".announcement p").first().getAttribute("lang")).toBe("en");
      expect(await page.locator('a[href="#/resources/getting-started"]').getAttribute("lang")).toBe("en");
      await screenshot(page, "fr-360-home");
      await expectAccessible(page, "French home");
    } finally {
      await french.close();
    }

    // API clients keep the contract's status and JSON body.
    const api = await stack.request(`/support/sessions/redirect?${new URLSearchParams({ token: "00000000-0000-4000-8000-000000000000" })}`);
    expect(api.status, api.text).toBe(404);
    expect((api.body as { code: string }).code).toBe("not_found");
  }, 120_000);
});
