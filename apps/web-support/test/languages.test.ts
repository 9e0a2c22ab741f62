// The web support page in the languages of its players, in headless Chromium in front of the
// whole backend (the gateway's test stack), at 360 px: a session in Traditional Chinese,
// Brazilian Portuguese, Argentine Spanish, Russian, Thai, Korean and Arabic shows that
// language's texts, marks <html> with the catalog's `lang` and `dir`, and loads that one
// catalog's chunk (no other), with no CSP violation and no serious axe violation; a catalog
// that cannot be loaded gives English. Then the time to interactive on a slow phone, cold,
// in English and in Russian (printed, with a generous ceiling). Screenshots go to
// .ci/out/web-support/lang-*.png.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "@support/testkit/accessibility";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";
import { en, type Catalog } from "../src/messages/en.ts";
import { ar } from "../src/messages/ar.ts";
import { es } from "../src/messages/es.ts";
import { ko } from "../src/messages/ko.ts";
import { ptBR } from "../src/messages/pt-BR.ts";
import { ru } from "../src/messages/ru.ts";
import { th } from "../src/messages/th.ts";
import { zhHant } from "../src/messages/zh-Hant.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../../.ci/out/web-support/", import.meta.url));
const PHONE = { width: 360, height: 740 };

const tenant = {
  company: { name: "Polyglot Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "main" }],
  games: [
    {
      ref: "polyglot",
      name: "Polyglot Quest",
      slug: "polyglot-quest",
      languages: ["en", "zh-Hant", "pt-BR", "es-AR", "ru", "th", "ko", "ar"],
      environments: [{ ref: "polyglot-production", name: "production", announcement: { shortContent: { en: "Servers are back online" }, longContent: null } }],
      resources: [{ key: "getting-started", title: { en: "Getting started" }, body: { en: "Press **Start** to play." } }],
    },
  ],
};

/** The session's language, the catalog the page must show for it, and the browser's language. */
const LANGUAGES: { session: string; catalog: string; texts: Catalog; browser: string; contact: string }[] = [
  { session: "zh-Hant", catalog: "zh-Hant", texts: zhHant, browser: "zh-TW", contact: "聯絡客服" },
  { session: "pt-BR", catalog: "pt-BR", texts: ptBR, browser: "pt-BR", contact: "Falar com o suporte" },
  // Spanish of Argentina reads the one (neutral) Spanish catalog.
  { session: "es-AR", catalog: "es", texts: es, browser: "es-AR", contact: "Escribir a soporte" },
  { session: "ru", catalog: "ru", texts: ru, browser: "ru-RU", contact: "Связаться с поддержкой" },
  // A browser set to English: the page still loads only the session's catalog.
  { session: "th", catalog: "th", texts: th, browser: "en-US", contact: "ติดต่อฝ่ายสนับสนุน" },
  { session: "ko", catalog: "ko", texts: ko, browser: "ko-KR", contact: "고객 지원에 문의하기" },
  { session: "ar", catalog: "ar", texts: ar, browser: "ar", contact: ar["home.contact"]! },
];

describe("the web support page in every language", () => {
  let stack: Stack;
  let bundle: BuiltBundle;
  let browser: Browser;
  let a: TenantResult;
  let base: string;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, WEB_SUPPORT_URL: `${base}/support/`, WEB_SUPPORT_DIR: bundle.dir } });
    a = await stack.applyTenant(tenant);
    browser = await launchBrowser();
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const redirect = (language: string, player: string) =>
    `${base}/support/sessions/redirect?${new URLSearchParams({ token: a.games.polyglot!.environments["polyglot-production"]!.token, language, "player.id": player })}`;

  /** A fresh browser (cold cache) at phone size; records the scripts it loads and every problem (CSP violation, error, other origin). */
  async function newPage(locale: string): Promise<{ context: BrowserContext; page: Page; scripts: string[]; headers: Map<string, Record<string, string>>; problems: string[] }> {
    const context = await browser.newContext({ viewport: PHONE, locale });
    const page = await context.newPage();
    const scripts: string[] = [];
    const problems: string[] = [];
    const headers = new Map<string, Record<string, string>>();
    page.on("console", (message) => {
      // Chromium reports a CSP violation as a console error ("Refused to load …").
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin !== base) problems.push(`third-party request: ${request.url()}`);
      else if (url.pathname.startsWith("/support/assets/") && url.pathname.endsWith(".js")) scripts.push(url.pathname.slice("/support/assets/".length));
    });
    page.on("response", (response) => {
      const { pathname } = new URL(response.url());
      if (pathname.startsWith("/support/assets/")) headers.set(pathname.slice("/support/assets/".length), response.headers());
      if (response.status() >= 400) problems.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
    });
    // Also caught in the page itself (a violation of a policy in a meta tag or of a worker says nothing on the console).
    await context.addInitScript(() => {
      addEventListener("securitypolicyviolation", (event) => {
        const found = ((window as unknown as { __csp?: string[] }).__csp ??= []);
        found.push(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    return { context, page, scripts, headers, problems };
  }

  it.each(LANGUAGES)("shows a $session session in its language, loading only that catalog", async ({ session, catalog, texts, browser: locale, contact }) => {
    const { context, page, scripts, headers, problems } = await newPage(locale);
    try {
      await page.goto(redirect(session, `player-${session}`));
      await page.getByRole("link", { name: contact }).waitFor();
      expect(texts["home.contact"]).toBe(contact);
      expect(contact).not.toBe(en["home.contact"]);
      await page.getByRole("heading", { level: 1, name: texts["app.title"]! }).waitFor();
      await page.getByRole("heading", { level: 2, name: texts["home.tickets"]! }).waitFor();
      await page.getByText(texts["home.noTickets"]!).waitFor();
      expect(await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }))).toEqual({ lang: catalog, dir: catalog === "ar" ? "rtl" : "ltr" });
      // No horizontal scrolling at 360 px, whatever the length of the language's words.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: `${SCREENSHOTS}lang-${session}-01-home.png`, fullPage: true });
      await expectAccessible(page, `${session} home`);

      await page.getByRole("link", { name: contact }).click();
      await page.locator("#message").waitFor();
      expect(await page.locator("label[for=message]").textContent()).toContain(texts["contact.message"]);
      await page.getByRole("button", { name: texts["contact.send"]! }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}lang-${session}-02-contact.png`, fullPage: true });
      await expectAccessible(page, `${session} contact form`);

      // The entry script and the one catalog of the session's language, nothing more.
      const catalogs = scripts.filter((name) => !name.startsWith("article-markdown-") && !name.startsWith("index-"));
      expect(catalogs, scripts.join(", ")).toHaveLength(1);
      expect(catalogs[0]).toMatch(new RegExp(`^${catalog}-[\\w-]{8}\\.js$`));
      // Served as the entry is: a script (the CSP's script-src 'self' covers it), cached for good (its name changes with its content).
      expect(headers.get(catalogs[0]!)).toMatchObject({ "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=31536000, immutable" });
      expect(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("shows English when the language's catalog cannot be loaded", async () => {
    const { context, page, scripts, problems } = await newPage("ru-RU");
    try {
      // The chunk never arrives (a lost connection, a deploy that removed it).
      await page.route("**/support/assets/ru-*.js", (route) => route.abort("connectionreset"));
      await page.goto(redirect("ru", "player-lost-chunk"));
      await page.getByRole("link", { name: en["home.contact"] }).waitFor();
      expect(await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }))).toEqual({ lang: "en", dir: "ltr" });
      expect(scripts.some((name) => name.startsWith("ru-"))).toBe(true);
      await page.screenshot({ path: `${SCREENSHOTS}lang-ru-chunk-failed.png`, fullPage: true });
      // The aborted chunk is the one expected failure.
      expect(problems.filter((problem) => !/ru-[\w-]{8}\.js/.test(problem))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  /**
   * Time to interactive on a slow phone, cold: from the navigation to the redirect (as the game
   * opens it) until the home page shows its heading, its conversations and the Contact link in
   * the session's language and a click on Contact, made the moment it shows, has opened the
   * contact form. The network is slow 4G (Lighthouse's mobile profile: 150 ms round trip,
   * 1.6 Mbit/s down, 750 kbit/s up, each × 0.9 as DevTools throttles them) in three forms: 150 ms
   * added to every request (what a phone sees on a connection already open, as the page's
   * requests reuse one), the same with a new connection's handshakes (300 ms) before the first
   * request, and DevTools' "Slow 4G" preset, which adds 562.5 ms (150 × 3.75) to
   * every request to stand for a new connection's handshakes each time: the pessimistic bound.
   * The CPU 4× slower, the viewport 360×740, a new browser context with the cache off. The
   * target (1.5 s) is in the docs; the test only bounds it generously, since the backend shares
   * this small machine.
   */
  it.each([
    { session: "en", latency: 150, handshake: 0, contact: en["home.contact"], tickets: en["home.tickets"] },
    { session: "ru", latency: 150, handshake: 0, contact: ru["home.contact"]!, tickets: ru["home.tickets"]! },
    { session: "ru", latency: 150, handshake: 300, contact: ru["home.contact"]!, tickets: ru["home.tickets"]! },
    { session: "en", latency: 562.5, handshake: 0, contact: en["home.contact"], tickets: en["home.tickets"] },
    { session: "ru", latency: 562.5, handshake: 0, contact: ru["home.contact"]!, tickets: ru["home.tickets"]! },
  ])("is interactive on a slow phone ($session, $latency ms a request, $handshake ms to connect)", async ({ session, latency, handshake, contact, tickets }) => {
    // The backend warmed first, as a running deployment is: the first session of a run costs
    // the services' first answers, not what a player waits for.
    const warm = await newPage(session === "en" ? "en-US" : "ru-RU");
    await warm.page.goto(redirect(session, `player-warm-${session}`));
    await warm.page.getByRole("link", { name: contact }).waitFor();
    await warm.context.close();
    const { context, page, scripts, problems } = await newPage(session === "en" ? "en-US" : "ru-RU");
    try {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency,
        downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
        uploadThroughput: ((750 * 1000) / 8) * 0.9,
      });
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      // A new connection's handshakes (TCP and TLS 1.3: two round trips) before the first request only.
      if (handshake > 0) {
        await page.route("**/support/sessions/redirect?*", async (route) => {
          await new Promise((resolve) => setTimeout(resolve, handshake));
          await route.continue();
        });
      }
      const started = Date.now();
      const waterfall: string[] = [];
      page.on("requestfinished", (request) => waterfall.push(`${new URL(request.url()).pathname.replace(/^\/(support|player-api)\//, "") || "index.html"} ${Date.now() - started}`));
      await page.goto(redirect(session, `player-slow-${session}`), { waitUntil: "commit" });
      await page.getByRole("heading", { level: 2, name: tickets }).waitFor({ timeout: 30_000 });
      const link = page.getByRole("link", { name: contact });
      await link.waitFor({ timeout: 30_000 });
      const rendered = Date.now() - started;
      await link.click();
      await page.locator("#message").waitFor({ timeout: 30_000 });
      const interactive = Date.now() - started;
      const timing = await page.evaluate(() => {
        const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        return { domContentLoaded: Math.round(navigation.domContentLoadedEventEnd), load: Math.round(navigation.loadEventEnd) };
      });
      console.log(`slow 4G (${latency} ms a request, ${handshake} ms to connect), 4× CPU, ${session}: home rendered ${rendered} ms, contact form open ${interactive} ms after the navigation (DOMContentLoaded ${timing.domContentLoaded} ms, load ${timing.load} ms; requests done at: ${waterfall.join(", ")})`);
      await page.screenshot({ path: `${SCREENSHOTS}lang-slow-phone-${session}-${latency}ms${handshake ? `-${handshake}ms-connect` : ""}.png`, fullPage: true });
      // The page came with its session and conversations (served at the redirect's target): it
      // asked for neither, and fetched its catalog once (the preload and the import are one).
      expect(waterfall.filter((request) => /^(session|tickets) /.test(request))).toEqual([]);
      expect(scripts.filter((name) => name.startsWith(`${session}-`))).toHaveLength(session === "en" ? 0 : 1);
      expect(interactive).toBeLessThan(10_000);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
