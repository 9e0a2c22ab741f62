// The help center of the web support page in headless Chromium, served by the real gateway in
// front of the whole backend (the gateway's test stack): a player searches the help articles
// (English, Japanese, French and Arabic sessions), opens a result, answers "Was this helpful?",
// sees related articles, and from "Still need help?" sends the contact form, which names the
// article, and the ticket carries it. In a light game at desktop width and a dark one (branding
// colorScheme dark) at 360 px; axe-core finds no serious or critical violation in either theme.
// A screenshot of every step goes to .ci/out/web-support/help-NN-*.png.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { createDb, sql, type Kysely } from "@support/db";
import { startStack, type Stack, type TenantResult } from "@support/gateway/test-stack";
import { freePort } from "@support/testkit";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "@support/testkit/accessibility";
import { launchBrowser } from "@support/testkit/browser";
import { buildBundle, type BuiltBundle } from "@support/testkit/bundle";

const SCREENSHOTS = fileURLToPath(new URL("../../../.ci/out/web-support/", import.meta.url));

const resources = [
  {
    key: "refunds",
    title: { en: "Refund policy", fr: "Politique de remboursement", ja: "返金について", ar: "سياسة الاسترداد" },
    body: {
      en: "We **refund** purchases made in the last 14 days. Open the store's order history to find the purchase.",
      fr: "Nous **remboursons** les achats des 14 derniers jours. Ouvrez l’historique des commandes de la boutique.",
      ja: "過去14日間の購入は**返金**できます。ストアの注文履歴から購入を探してください。",
      ar: "نسترد قيمة المشتريات خلال آخر 14 يومًا. افتح سجل الطلبات في المتجر.",
    },
  },
  {
    key: "payments",
    title: { en: "Payment methods", fr: "Moyens de paiement", ja: "支払い方法", ar: "طرق الدفع" },
    body: {
      en: "Cards and wallets are accepted. Refunds go back to the card you paid with.",
      fr: "Cartes et portefeuilles acceptés. Les remboursements reviennent sur la carte utilisée.",
      ja: "カードとウォレットが使えます。返金は支払いに使ったカードに戻ります。",
      ar: "نقبل البطاقات والمحافظ. تعود المبالغ المستردة إلى البطاقة.",
    },
  },
  {
    key: "login",
    title: { en: "Cannot log in", fr: "Connexion impossible", ja: "ログインできない", ar: "لا يمكن تسجيل الدخول" },
    body: {
      en: "Reset your password from the sign-in page.",
      fr: "Réinitialisez votre mot de passe depuis la page de connexion.",
      ja: "サインイン画面からパスワードを再設定してください。",
      ar: "أعد تعيين كلمة المرور من صفحة تسجيل الدخول.",
    },
  },
];
const sections: Record<string, Record<string, string>> = {
  refunds: { en: "Billing", fr: "Facturation", ja: "お支払い", ar: "الفوترة" },
  payments: { en: "Billing", fr: "Facturation", ja: "お支払い", ar: "الفوترة" },
  login: { en: "Account", fr: "Compte", ja: "アカウント", ar: "الحساب" },
};

const game = (ref: string, name: string) => ({
  ref, name, slug: `help-${ref}`, languages: ["en", "fr", "ja", "ar"],
  environments: [{ ref: `${ref}-production`, name: "production" }],
  resources,
});
const tenant = { company: { name: "Help Center Studio", primaryLanguage: "en" }, apiKeys: [{ name: "main" }], games: [game("day", "Day Quest"), game("night", "Night Quest")] };

describe("the help center in a browser", () => {
  let stack: Stack;
  let bundle: BuiltBundle;
  let browser: Browser;
  let a: TenantResult;
  let content: Kysely<unknown>;
  let base: string;

  beforeAll(async () => {
    bundle = await buildBundle(fileURLToPath(new URL("..", import.meta.url)));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stack = await startStack({ gateway: { PORT: port, WEB_SUPPORT_URL: `${base}/support/`, WEB_SUPPORT_DIR: bundle.dir } });
    a = await stack.applyTenant(tenant);
    // Sections and the dark branding are the settings' (a tenant file has neither); set here
    // before any page reads them.
    content = createDb({ url: stack.infra.databaseUrl, schema: "content", maxConnections: 1 });
    for (const [key, section] of Object.entries(sections)) {
      await sql`update game_resources set section = ${JSON.stringify(section)}::jsonb where key = ${key} and game_id in (${a.games.day!.id}::uuid, ${a.games.night!.id}::uuid)`.execute(content);
    }
    await sql`insert into game_brandings (game_id, company_id, color_scheme) select id, company_id, 'dark' from games where id = ${a.games.night!.id}::uuid`.execute(content);
    browser = await launchBrowser();
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await content?.destroy();
    await stack?.stop();
  });

  async function journey(options: {
    name: string;
    gameRef: "day" | "night";
    language: string;
    viewport: { width: number; height: number };
    query: string;
    texts: { searchLabel: string; results: string; articleTitle: string; helpful: string; yes: string; thanks: string; related: string; relatedTitle: string; contact: string; about: string; send: string };
  }): Promise<void> {
    const { name, language, viewport, texts } = options;
    const context = await browser.newContext({ viewport, locale: "en-US" });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
    });
    const shot = (step: string) => page.screenshot({ path: `${SCREENSHOTS}help-${step}-${name}.png`, fullPage: true });
    try {
      const token = a.games[options.gameRef]!.environments[`${options.gameRef}-production`]!.token;
      const query = new URLSearchParams({ token, language, "player.id": `player-${name}`, "player.email": `${name}@example.com` });
      await page.goto(`${base}/support/sessions/redirect?${query}`);
      await page.locator("#resources-title").waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.scheme)).toBe(options.gameRef === "night" ? "dark" : "light");

      // 1. The search above the articles: a search landmark with a labelled field.
      const field = page.getByRole("searchbox", { name: texts.searchLabel });
      await field.waitFor();
      expect(await page.getByRole("search").count()).toBe(1);
      await shot("01-home");
      await expectAccessible(page, `${name} home`);

      // 2. Results replace the list, announced through the live region; Escape brings the list back.
      await field.fill(options.query);
      await field.press("Enter");
      await page.getByRole("heading", { level: 2, name: texts.results }).waitFor();
      expect(await page.locator('[role="status"] #results-title').count()).toBe(1);
      expect(await page.locator("#resources-title").isVisible()).toBe(false);
      const first = page.locator(".results li").first();
      expect(await first.locator("a").textContent()).toBe(texts.articleTitle);
      expect((await first.locator(".excerpt").textContent())?.length).toBeGreaterThan(5);
      expect(await page.locator(".results .excerpt strong, .results .excerpt b").count()).toBe(0);
      await shot("02-results");
      await expectAccessible(page, `${name} results`);
      await field.press("Escape");
      await page.locator("#resources-title").waitFor({ state: "visible" });
      expect(await page.locator(".results").count()).toBe(0);
      expect(await field.inputValue()).toBe("");
      // A search that finds nothing says so.
      await field.fill("zzzqqqxxx");
      await field.press("Enter");
      await page.locator('[role="status"] #results-title', { hasText: "zzzqqqxxx" }).waitFor();
      await shot("03-no-results");
      await page.locator("button.clear").click();
      await page.locator("#resources-title").waitFor({ state: "visible" });

      // 3. A result opens the article.
      await field.fill(options.query);
      await field.press("Enter");
      await page.locator(".results li a").first().click();
      await page.getByRole("heading", { level: 1, name: texts.articleTitle }).waitFor();

      // 4. "Was this helpful?" then the thanks; related articles; "Still need help?".
      await page.getByRole("heading", { level: 2, name: texts.helpful }).waitFor();
      await page.getByRole("heading", { level: 2, name: texts.related }).waitFor();
      expect(await page.locator(".related li a").first().textContent()).toBe(texts.relatedTitle);
      expect(await page.locator(".related li a", { hasText: texts.articleTitle }).count()).toBe(0);
      await shot("04-article");
      await expectAccessible(page, `${name} article`);
      await page.getByRole("button", { name: texts.yes, exact: true }).click();
      await page.getByText(texts.thanks).waitFor();
      // The thanks takes the focus from the buttons it replaces (once it is drawn).
      await expect.poll(() => page.evaluate(() => document.activeElement?.classList.contains("thanks"))).toBe(true);
      await shot("05-feedback");
      await expectAccessible(page, `${name} thanks`);

      // 5. The contact form names the article; the ticket carries it.
      await page.getByRole("link", { name: texts.contact }).click();
      await page.locator(".about-article").waitFor();
      expect((await page.locator(".about-article").textContent())?.replace(/\s+/g, " ").trim()).toBe(texts.about);
      await page.locator("#message").fill(`Still stuck (${name})`);
      await shot("06-contact");
      await expectAccessible(page, `${name} contact`);
      await page.getByRole("button", { name: texts.send, exact: true }).click();
      await page.waitForURL(/#\/tickets\//, { timeout: 30_000 });
      const ticketId = decodeURIComponent(page.url().split("#/tickets/")[1]!);
      await page.locator(".bubble.mine .text", { hasText: `Still stuck (${name})` }).waitFor();
      await shot("07-ticket");
      const listed = await stack.request(`/tickets?ticketId=${ticketId}`, { key: a.apiKeys.main! });
      expect(listed.status, listed.text).toBe(200);
      expect((listed.body as { tickets: { metadata: Record<string, unknown> }[] }).tickets[0]!.metadata).toMatchObject({ articleKey: "refunds", articleTitle: texts.articleTitle });

      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }

  it("in English, light, at desktop width", async () => {
    await journey({
      name: "en-desktop-light", gameRef: "day", language: "en", viewport: { width: 1280, height: 900 }, query: "refunds",
      texts: {
        searchLabel: "Search the help articles", results: "Articles about “refunds”", articleTitle: "Refund policy", helpful: "Was this helpful?", yes: "Yes",
        thanks: "Thank you for your feedback.", related: "Related articles", relatedTitle: "Payment methods", contact: "Contact support",
        about: "About the article: Refund policy", send: "Send",
      },
    });
  }, 180_000);

  it("in Japanese, dark, at 360 px", async () => {
    await journey({
      name: "ja-360-dark", gameRef: "night", language: "ja", viewport: { width: 360, height: 740 }, query: "返金",
      texts: {
        searchLabel: "ヘルプ記事を検索", results: "「返金」に関する記事", articleTitle: "返金について", helpful: "この記事は役に立ちましたか？", yes: "はい",
        thanks: "ご意見ありがとうございます。", related: "関連記事", relatedTitle: "支払い方法", contact: "サポートに問い合わせる",
        about: "記事について：返金について", send: "送信",
      },
    });
  }, 180_000);

  it("in French, dark, at desktop width", async () => {
    await journey({
      name: "fr-desktop-dark", gameRef: "night", language: "fr", viewport: { width: 1280, height: 900 }, query: "remboursement",
      texts: {
        searchLabel: "Rechercher dans les articles d’aide", results: "Articles sur « remboursement »", articleTitle: "Politique de remboursement", helpful: "Cet article vous a-t-il aidé ?", yes: "Oui",
        thanks: "Merci pour votre avis.", related: "Articles associés", relatedTitle: "Moyens de paiement", contact: "Contacter le support",
        about: "À propos de l’article : Politique de remboursement", send: "Envoyer",
      },
    });
  }, 180_000);

  it("in Arabic, light, at 360 px", async () => {
    await journey({
      name: "ar-360-light", gameRef: "day", language: "ar", viewport: { width: 360, height: 740 }, query: "المشتريات",
      texts: {
        searchLabel: "ابحث في مقالات المساعدة", results: "مقالات عن «المشتريات»", articleTitle: "سياسة الاسترداد", helpful: "هل كان هذا مفيدًا؟", yes: "نعم",
        thanks: "شكرًا لملاحظاتك.", related: "مقالات ذات صلة", relatedTitle: "طرق الدفع", contact: "تواصل مع الدعم",
        about: "بخصوص المقالة: سياسة الاسترداد", send: "إرسال",
      },
    });
  }, 180_000);
});
