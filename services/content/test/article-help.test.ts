// The help center on real Postgres: search ranks a title match above a body match, searches each
// article in the language it is shown in only (Japanese words found through the pairs of
// characters the index holds), refuses blank or long words; votes count one per session and
// article (a second replaces the first), per language; related articles come from the section
// first, then by shared words, never the article itself; another company's game is not found.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userActor, type ChangeOrigin } from "../src/audit/audit-log.ts";
import { changeArticle, createArticle, listArticles, removeArticle } from "../src/games/article.service.ts";
import { feedbackOfArticles, recordArticleFeedback, relatedArticles, searchArticles } from "../src/games/article-help.service.ts";
import { websearchText } from "@support/search-words";
import { excerptAround, markdownToPlainText } from "../src/games/article-help.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;
beforeAll(async () => {
  ctx = await startContent();
});
afterAll(async () => {
  await ctx?.stop();
});

const origin: ChangeOrigin = { actor: userActor("00000000-0000-4000-8000-000000000001"), clientAddress: "10.9.0.4" };

async function setup() {
  const company = await seedCompany(ctx.db, { primaryLanguage: "en" });
  const { game } = await seedGame(ctx.db, company.id);
  const add = (key: string, title: Record<string, string>, body: Record<string, string>, section: Record<string, string> = {}) =>
    createArticle(ctx.db, company.id, game.id, { key, title, body, section }, origin);
  await add("refunds", { en: "Refund policy", fr: "Remboursements", ja: "返金について" }, { en: "We refund purchases made in the last 14 days.", fr: "Nous remboursons les achats des 14 derniers jours.", ja: "過去14日間の購入は返金できます。" }, { en: "Billing" });
  await add("payments", { en: "Payment methods", fr: "Moyens de paiement" }, { en: "Cards and wallets. Refunds go back to the card you paid with.", fr: "Cartes et portefeuilles." }, { en: "Billing" });
  await add("login", { en: "Cannot log in", ja: "ログインできない" }, { en: "Reset your **password** from the [sign-in page](https://example.invalid/reset).", ja: "サインイン画面からパスワードを再設定してください。" }, { en: "Account" });
  await add("password", { en: "Change your password", ja: "パスワードの変更" }, { en: "Open the settings and choose a new password to log in with." }, { en: "Account" });
  await add("servers", { en: "Server status" }, { en: "Maintenance happens on Tuesdays." }, { en: "Game" });
  return { companyId: company.id, gameId: game.id };
}

const shownIn = (language: string, keys = ["refunds", "payments", "login", "password", "servers"]) => keys.map((key) => ({ key, language }));

describe("help center search", () => {
  it("ranks a title match above a body match, with a plain-text excerpt", async () => {
    const { companyId, gameId } = await setup();
    const hits = await searchArticles(ctx.db, companyId, gameId, shownIn("en"), "refunds");
    expect(hits.map((hit) => hit.key)).toEqual(["refunds", "payments"]);
    expect(hits[1]).toMatchObject({ language: "en" });
    expect(hits[1]!.excerpt).toContain("Refunds go back");
    const login = await searchArticles(ctx.db, companyId, gameId, shownIn("en"), "password");
    expect(login.map((hit) => hit.key)).toEqual(["password", "login"]);
    expect(login[1]!.excerpt).toBe("Reset your password from the sign-in page.");
  });

  it("searches each article in the language it is shown in only", async () => {
    const { companyId, gameId } = await setup();
    expect((await searchArticles(ctx.db, companyId, gameId, shownIn("fr", ["refunds", "payments"]), "remboursement")).map((hit) => hit.key)).toEqual(["refunds"]);
    expect(await searchArticles(ctx.db, companyId, gameId, shownIn("en"), "remboursement")).toEqual([]);
    // Only the articles named are searched.
    expect((await searchArticles(ctx.db, companyId, gameId, shownIn("en", ["payments"]), "refund")).map((hit) => hit.key)).toEqual(["payments"]);
  });

  it("finds Japanese words inside runs of characters", async () => {
    const { companyId, gameId } = await setup();
    const shown = [...shownIn("ja", ["refunds", "login", "password"]), ...shownIn("en", ["payments", "servers"])];
    expect((await searchArticles(ctx.db, companyId, gameId, shown, "パスワード")).map((hit) => hit.key)).toEqual(["password", "login"]);
    const refund = await searchArticles(ctx.db, companyId, gameId, shown, "返金");
    expect(refund.map((hit) => hit.key)).toEqual(["refunds"]);
    expect(refund[0]!.excerpt).toContain("返金できます");
    expect(websearchText("ログイン help")).toBe(' "ログ グイ イン"  help');
  });

  it("follows changes and removals of articles", async () => {
    const { companyId, gameId } = await setup();
    const servers = (await listArticles(ctx.db, companyId, gameId)).find((article) => article.key === "servers")!;
    await changeArticle(ctx.db, companyId, servers.id, { title: { en: "Server status" }, body: { en: "Outages are announced on the page." } }, origin);
    expect((await searchArticles(ctx.db, companyId, gameId, shownIn("en"), "outage")).map((hit) => hit.key)).toEqual(["servers"]);
    await removeArticle(ctx.db, companyId, servers.id, origin);
    expect(await searchArticles(ctx.db, companyId, gameId, shownIn("en"), "outage")).toEqual([]);
  });

  it("refuses blank or long words, and another company's game", async () => {
    const { companyId, gameId } = await setup();
    await expect(searchArticles(ctx.db, companyId, gameId, shownIn("en"), "  ")).rejects.toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/q" }] } });
    await expect(searchArticles(ctx.db, companyId, gameId, shownIn("en"), "x".repeat(201))).rejects.toMatchObject({ code: "invalid_argument" });
    const other = await seedCompany(ctx.db);
    await expect(searchArticles(ctx.db, other.id, gameId, shownIn("en"), "refund")).rejects.toMatchObject({ code: "not_found" });
  });

  it("turns Markdown into an excerpt around the first word found", () => {
    expect(markdownToPlainText("# Title\n\n- one *two* `three`\n> ![logo](x.png) [link](y)")).toBe("Title one two three logo link");
    const text = `${"a ".repeat(100)}needle ${"b ".repeat(100)}`;
    const excerpt = excerptAround(text.trim(), ["needle"]);
    expect(excerpt.startsWith("…")).toBe(true);
    expect(excerpt.endsWith("…")).toBe(true);
    expect(excerpt).toContain("needle");
  });
});

describe("related articles", () => {
  it("names the section's articles first, then those sharing words, never the article itself", async () => {
    const { companyId, gameId } = await setup();
    expect(await relatedArticles(ctx.db, companyId, gameId, "login", "en", shownIn("en"))).toEqual(["password"]);
    // Billing: payments (same section) first, then nothing else shares the words.
    expect(await relatedArticles(ctx.db, companyId, gameId, "refunds", "en", shownIn("en"))).toEqual(["payments"]);
    // password shares "log in" with login (its section too); servers shares nothing.
    const related = await relatedArticles(ctx.db, companyId, gameId, "password", "en", shownIn("en"));
    expect(related[0]).toBe("login");
    expect(related).not.toContain("password");
    expect(related.length).toBeLessThanOrEqual(3);
  });
});

describe("was this helpful?", () => {
  it("counts one vote per session and article, per language; a second vote replaces the first", async () => {
    const { companyId, gameId } = await setup();
    await recordArticleFeedback(ctx.db, companyId, gameId, "refunds", { sessionId: "s1", language: "en", helpful: true });
    await recordArticleFeedback(ctx.db, companyId, gameId, "refunds", { sessionId: "s1", language: "en", helpful: false });
    await recordArticleFeedback(ctx.db, companyId, gameId, "refunds", { sessionId: "s2", language: "en", helpful: true });
    await recordArticleFeedback(ctx.db, companyId, gameId, "refunds", { sessionId: "s3", language: "fr", helpful: true });
    await recordArticleFeedback(ctx.db, companyId, gameId, "login", { sessionId: "s1", language: "ja", helpful: false });
    const articles = await listArticles(ctx.db, companyId, gameId);
    const id = (key: string) => articles.find((article) => article.key === key)!.id;
    const counts = await feedbackOfArticles(ctx.db, companyId, gameId);
    expect(counts.get(id("refunds"))).toEqual([{ language: "en", helpful: 1, notHelpful: 1 }, { language: "fr", helpful: 1, notHelpful: 0 }]);
    expect(counts.get(id("login"))).toEqual([{ language: "ja", helpful: 0, notHelpful: 1 }]);
    expect(counts.get(id("servers"))).toBeUndefined();
  });

  it("refuses an article the game does not have and another company's game", async () => {
    const { companyId, gameId } = await setup();
    await expect(recordArticleFeedback(ctx.db, companyId, gameId, "nope", { sessionId: "s1", language: "en", helpful: true })).rejects.toMatchObject({ code: "not_found" });
    const other = await seedCompany(ctx.db);
    await expect(recordArticleFeedback(ctx.db, other.id, gameId, "refunds", { sessionId: "s1", language: "en", helpful: true })).rejects.toMatchObject({ code: "not_found" });
    await expect(feedbackOfArticles(ctx.db, other.id, gameId)).rejects.toMatchObject({ code: "not_found" });
  });
});
