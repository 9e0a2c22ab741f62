// The web support page's help center over the real stack: a session searches its game's
// articles in its language (French stems, Japanese words inside runs of characters), reads
// related articles, says whether an article helped (one answer per session, a second replaces
// it) and opens a ticket about an article, which agents see in the ticket's metadata. Admins see
// the counts in the articles settings (an agent gets 403 there). No session is a 403, bad words
// a 400 naming /q, an unknown article a 404, and another company's session never sees or counts
// these articles.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@help.example`, abe: `abe-${suffix}@help.example`, oto: `oto-${suffix}@other-help.example` };

interface SearchResultDto { key: string; title: string; excerpt: string; language: string; section: string | null }
interface FeedbackDto { helpful: number; notHelpful: number; languages: { language: string; helpful: number; notHelpful: number }[] }

let stack: Stack;
let tenant: TenantResult;
let other: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;

const galaxy = () => tenant.games.galaxy!;

async function sessionCode(token: string, language: string, playerId = `p-${suffix}`): Promise<string> {
  const created = await stack.request("/support/sessions", { method: "POST", json: { token, language, player: { id: playerId, email: `${playerId}@players.example` } } });
  expect(created.status, created.text).toBe(200);
  return (created.body as { sessionCode: string }).sessionCode;
}
const asPlayer = (code: string, path: string, json?: unknown) =>
  stack.request(path, { method: json === undefined ? "GET" : "POST", headers: { authorization: `Session ${code}` }, ...(json === undefined ? {} : { json }) });
const search = async (code: string, q: string) => {
  const response = await asPlayer(code, `/player-api/resources?q=${encodeURIComponent(q)}`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { results: SearchResultDto[] }).results;
};
const feedbackOf = async (user: SignedInAgent, gameId: string) => {
  const response = await agentRead(stack, user, `/agent-api/settings/games/${gameId}/articles`);
  expect(response.status, response.text).toBe(200);
  return Object.fromEntries((response.body as { articles: { key: string; feedback: FeedbackDto }[] }).articles.map((article) => [article.key, article.feedback]));
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Help Studio" },
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-help-${suffix}`, languages: ["en", "fr", "ja"], environments: [{ ref: "production", name: "production" }] }],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  other = await stack.applyTenant({
    company: { name: "Other Help Studio" },
    games: [{ ref: "theirs", name: "Theirs", slug: `theirs-help-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
  const articles = [
    { key: "refunds", title: { en: "Refund policy", fr: "Remboursements", ja: "返金について" }, section: { en: "Billing", fr: "Paiements" }, body: { en: "We refund purchases of the last 14 days.", fr: "Nous remboursons les achats des 14 derniers jours.", ja: "過去14日間の購入は返金できます。" } },
    { key: "payments", title: { en: "Payment methods", fr: "Moyens de paiement" }, section: { en: "Billing", fr: "Paiements" }, body: { en: "Cards and wallets. **Refunds** go back to the card.", fr: "Cartes et portefeuilles." } },
    { key: "login", title: { en: "Cannot log in", ja: "ログインできない" }, section: { en: "Account" }, body: { en: "Reset your password from the sign-in page.", ja: "サインイン画面からパスワードを再設定してください。" } },
  ];
  for (const article of articles) {
    const created = await agentWrite(stack, users.ada, "POST", `/agent-api/settings/games/${galaxy().id}/articles`, article);
    expect(created.status, created.text).toBe(201);
  }
  // The other company has an article of the same key and words.
  const theirs = await agentWrite(stack, users.oto, "POST", `/agent-api/settings/games/${other.games.theirs!.id}/articles`, {
    key: "refunds", title: { en: "Refund policy" }, body: { en: "We refund nothing." },
  });
  expect(theirs.status, theirs.text).toBe(201);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("GET /player-api/resources?q=", () => {
  it("finds the session's language's articles, best first, with a plain-text excerpt", async () => {
    const code = await sessionCode(galaxy().environments.production!.token, "en");
    const results = await search(code, "refunds");
    expect(results.map((result) => result.key)).toEqual(["refunds", "payments"]);
    expect(results[0]).toEqual({ key: "refunds", title: "Refund policy", excerpt: "We refund purchases of the last 14 days.", language: "en", section: "Billing" });
    expect(results[1]!.excerpt).toBe("Cards and wallets. Refunds go back to the card.");
    expect(await search(code, "remboursement")).toEqual([]);

    const french = await sessionCode(galaxy().environments.production!.token, "fr");
    expect((await search(french, "remboursement")).map((result) => [result.key, result.title, result.section])).toEqual([["refunds", "Remboursements", "Paiements"]]);

    // Japanese: the login article is shown in Japanese (its title and body), the payments one in English.
    const japanese = await sessionCode(galaxy().environments.production!.token, "ja");
    const found = await search(japanese, "パスワード");
    expect(found.map((result) => [result.key, result.language])).toEqual([["login", "ja"]]);
    expect(found[0]!.title).toBe("ログインできない");
    expect((await search(japanese, "返金")).map((result) => result.key)).toEqual(["refunds"]);
  });

  it("refuses no session, blank or long words; another company's session never sees these articles", async () => {
    expect((await stack.request("/player-api/resources?q=refund")).status).toBe(403);
    const code = await sessionCode(galaxy().environments.production!.token, "en");
    for (const q of ["", "   ", "x".repeat(201)]) {
      const response = await asPlayer(code, `/player-api/resources?q=${encodeURIComponent(q)}`);
      expect(response.status, q).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
    }
    expect((await asPlayer(code, "/player-api/resources")).status).toBe(400);
    const theirs = await sessionCode(other.games.theirs!.environments.production!.token, "en");
    expect(await search(theirs, "refunds")).toEqual([expect.objectContaining({ key: "refunds", excerpt: "We refund nothing." })]);
    expect(await search(theirs, "wallets")).toEqual([]);
  });
});

describe("GET /player-api/resources/{key}/related", () => {
  it("names the section's articles first, never the article itself", async () => {
    const code = await sessionCode(galaxy().environments.production!.token, "en");
    const response = await asPlayer(code, "/player-api/resources/refunds/related");
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ resources: [{ key: "payments", title: "Payment methods", language: "en", section: "Billing" }] });
    expect((await asPlayer(code, "/player-api/resources/nope/related")).status).toBe(404);
    expect((await stack.request("/player-api/resources/refunds/related")).status).toBe(403);
  });
});

describe("POST /player-api/resources/{key}/feedback", () => {
  it("counts one answer per session and article, per language; admins see the counts, agents get 403", async () => {
    const token = galaxy().environments.production!.token;
    const first = await sessionCode(token, "en", `fb1-${suffix}`);
    const second = await sessionCode(token, "fr", `fb2-${suffix}`);
    expect((await asPlayer(first, "/player-api/resources/refunds/feedback", { helpful: true })).status).toBe(204);
    expect((await asPlayer(first, "/player-api/resources/refunds/feedback", { helpful: false })).status).toBe(204);
    expect((await asPlayer(second, "/player-api/resources/refunds/feedback", { helpful: true })).status).toBe(204);

    expect((await asPlayer(first, "/player-api/resources/refunds/feedback", { helpful: "yes" })).status).toBe(400);
    expect((await asPlayer(first, "/player-api/resources/refunds/feedback", {})).status).toBe(400);
    expect((await asPlayer(first, "/player-api/resources/nope/feedback", { helpful: true })).status).toBe(404);
    expect((await stack.request("/player-api/resources/refunds/feedback", { method: "POST", json: { helpful: true } })).status).toBe(403);
    // Another company's session answers about its own article of that key, never this one.
    const theirs = await sessionCode(other.games.theirs!.environments.production!.token, "en", `fb3-${suffix}`);
    expect((await asPlayer(theirs, "/player-api/resources/refunds/feedback", { helpful: true })).status).toBe(204);
    expect((await asPlayer(theirs, "/player-api/resources/payments/feedback", { helpful: true })).status).toBe(404);

    const counts = await feedbackOf(users.ada, galaxy().id);
    expect(counts.refunds).toEqual({ helpful: 1, notHelpful: 1, languages: [{ language: "en", helpful: 0, notHelpful: 1 }, { language: "fr", helpful: 1, notHelpful: 0 }] });
    expect(counts.payments).toEqual({ helpful: 0, notHelpful: 0, languages: [] });
    expect((await feedbackOf(users.oto, other.games.theirs!.id)).refunds).toMatchObject({ helpful: 1, notHelpful: 0 });
    expect((await agentRead(stack, users.abe, `/agent-api/settings/games/${galaxy().id}/articles`)).status).toBe(403);
    expect((await agentRead(stack, users.oto, `/agent-api/settings/games/${galaxy().id}/articles`)).status).toBe(404);
  });
});

describe("POST /player-api/tickets with an article", () => {
  it("notes the article in the ticket's metadata, as the player saw its title; an unknown article is a 404", async () => {
    const code = await sessionCode(galaxy().environments.production!.token, "fr", `tk-${suffix}`);
    const created = await asPlayer(code, "/player-api/tickets", { message: "Toujours pas remboursé", article: "refunds" });
    expect(created.status, created.text).toBe(200);
    const { ticketId } = created.body as { ticketId: string };
    const ticket = await agentRead(stack, users.abe, `/agent-api/tickets/${ticketId}`);
    expect(ticket.status, ticket.text).toBe(200);
    expect((ticket.body as { ticket: { metadata: Record<string, unknown> } }).ticket.metadata).toMatchObject({ platform: "web", articleKey: "refunds", articleTitle: "Remboursements" });
    expect((await asPlayer(code, "/player-api/tickets", { message: "Hello", article: "nope" })).status).toBe(404);
  });
});
