// Settings → Help articles and announcements over the real stack: an admin lists a game's
// articles in their order, adds one with a section and a body in two languages, changes it,
// reorders and removes it, and sets and clears the shared, a game's and an environment's
// announcement; the player's session (its language) and the public API see each change at once.
// An agent gets 403 on every operation, another company's game or article is a 404, bad input a
// 400 naming its path (the primary-language rule of announcements included), and every change is
// in the audit log with before and after.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@articles.example`, abe: `abe-${suffix}@articles.example`, oto: `oto-${suffix}@other.example` };

type Localized = Record<string, string | null>;
interface ArticleDto {
  id: string;
  gameId: string;
  key: string;
  title: string;
  titleLocalized: Localized;
  section: Localized;
  body: Localized;
  position: number;
  updatedAt: string;
}
interface AnnouncementDto {
  scope: string;
  gameId: string | null;
  environmentId: string | null;
  shortContent: Localized;
  longContent: Localized;
}
interface AuditEntryDto {
  action: string;
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}
interface PlayerSessionDto {
  announcement: { text: string; details: string | null; language: string; detailsLanguage?: string } | null;
  resources: { key: string; title: string; section: string | null }[];
}

let stack: Stack;
let tenant: TenantResult;
let other: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "PUT" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const articles = async (gameId: string, user: SignedInAgent = users.ada) => {
  const response = await read(user, `/agent-api/settings/games/${gameId}/articles`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { articles: ArticleDto[] }).articles;
};
const auditLog = async () => {
  const response = await read(users.ada, "/agent-api/audit-log?limit=200");
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};
const playerPage = async (token: string, language: string) => {
  const created = await stack.request("/support/sessions", { method: "POST", json: { token, language, player: { id: `p-${suffix}` } } });
  expect(created.status, created.text).toBe(200);
  const response = await stack.request("/player-api/session", { headers: { authorization: `Session ${(created.body as { sessionCode: string }).sessionCode}` } });
  expect(response.status, response.text).toBe(200);
  return { session: response.body as PlayerSessionDto, code: (created.body as { sessionCode: string }).sessionCode };
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Articles Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      {
        ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "production", name: "production" }, { ref: "staging", name: "staging" }],
        resources: [{ key: "billing", title: "Billing" }],
      },
      { ref: "nebula", name: "Nebula", slug: `nebula-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] },
    ],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  other = await stack.applyTenant({
    company: { name: "Other Studio" },
    games: [{ ref: "theirs", name: "Theirs", slug: `theirs-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }], resources: [{ key: "faq", title: "FAQ" }] }],
    users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const galaxy = () => tenant.games.galaxy!;
const theirs = () => other.games.theirs!;

describe("help articles in the settings", () => {
  it("adds, changes, reorders and removes an article; the player's page in each language follows", async () => {
    const token = galaxy().environments.production!.token;
    expect((await articles(galaxy().id)).map((a) => [a.key, a.position])).toEqual([["billing", 0]]);

    const created = await write(users.ada, "POST", `/agent-api/settings/games/${galaxy().id}/articles`, {
      title: { en: "Refunds", de: "Erstattungen" },
      section: { en: "Payments", de: "Zahlungen" },
      body: { en: "Ask **us**.", de: "Frag **uns**." },
    });
    expect(created.status, created.text).toBe(201);
    const article = created.body as ArticleDto;
    expect(article).toMatchObject({ gameId: galaxy().id, title: "Refunds", position: 1, section: { en: "Payments", de: "Zahlungen" } });
    expect(article.key).toMatch(/^refunds-[0-9a-f]{6}$/);

    const inGerman = await playerPage(token, "de");
    // Each title says its language: billing has no German title.
    expect(inGerman.session.resources).toEqual([{ key: "billing", title: "Billing", language: "en", section: null }, { key: article.key, title: "Erstattungen", language: "de", section: "Zahlungen" }]);
    const body = await stack.request(`/player-api/resources/${article.key}`, { headers: { authorization: `Session ${inGerman.code}` } });
    expect(body.body).toMatchObject({ title: "Erstattungen", body: "Frag **uns**." });

    const changed = await write(users.ada, "PUT", `/agent-api/settings/articles/${article.id}`, { title: { en: "Refunds and returns", de: "Erstattungen" }, section: { en: "Payments" }, body: { en: "Write to us." } });
    expect(changed.status, changed.text).toBe(200);
    expect((await playerPage(token, "en")).session.resources[1]).toEqual({ key: article.key, title: "Refunds and returns", language: "en", section: "Payments" });

    const billing = (await articles(galaxy().id))[0]!;
    const reordered = await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/article-order`, { articleIds: [article.id, billing.id] });
    expect(reordered.status, reordered.text).toBe(200);
    expect((reordered.body as { articles: ArticleDto[] }).articles.map((a) => a.key)).toEqual([article.key, "billing"]);
    expect((await playerPage(token, "en")).session.resources.map((r) => r.key)).toEqual([article.key, "billing"]);

    const removed = await write(users.ada, "DELETE", `/agent-api/settings/articles/${article.id}`);
    expect(removed.status, removed.text).toBe(200);
    expect((await playerPage(token, "en")).session.resources.map((r) => r.key)).toEqual(["billing"]);

    const entries = (await auditLog()).filter((entry) => entry.action.startsWith("resource.")).reverse();
    expect(entries.map((entry) => entry.action)).toEqual(["resource.created", "resource.updated", "resource.reordered", "resource.removed"]);
    expect(entries[1]).toMatchObject({ target: { type: "resource", id: article.id }, before: { title: { en: "Refunds", de: "Erstattungen" } }, after: { title: { en: "Refunds and returns" }, body: { en: "Write to us." } } });
    expect(entries[2]).toMatchObject({ target: { type: "game", id: galaxy().id }, before: { order: ["billing", article.key] }, after: { order: [article.key, "billing"] } });
    expect(entries[3]).toMatchObject({ after: null });
  });

  it("answers 404 for another company's game or article", async () => {
    const theirArticle = (await articles(theirs().id, users.oto))[0]!;
    expect((await read(users.ada, `/agent-api/settings/games/${theirs().id}/articles`)).status).toBe(404);
    expect((await write(users.ada, "POST", `/agent-api/settings/games/${theirs().id}/articles`, { title: { en: "Mine" } })).status).toBe(404);
    expect((await write(users.ada, "PUT", `/agent-api/settings/articles/${theirArticle.id}`, { title: { en: "Mine" } })).status).toBe(404);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/articles/${theirArticle.id}`)).status).toBe(404);
    expect((await write(users.ada, "PUT", `/agent-api/settings/games/${theirs().id}/article-order`, { articleIds: [theirArticle.id] })).status).toBe(404);
    expect((await write(users.ada, "PUT", "/agent-api/settings/announcements", { gameId: theirs().id, shortContent: { en: "Mine" } })).status).toBe(404);
    expect((await write(users.ada, "PUT", "/agent-api/settings/announcements", { gameId: galaxy().id, environmentId: theirs().environments.production!.id, shortContent: { en: "Mine" } })).status).toBe(404);
    expect(await articles(theirs().id, users.oto)).toEqual([theirArticle]);
  });

  it("answers bad input with 400 naming its path", async () => {
    const billing = (await articles(galaxy().id))[0]!;
    const create = (body: Record<string, unknown>) => write(users.ada, "POST", `/agent-api/settings/games/${galaxy().id}/articles`, body);
    const cases: [StackResponse, string][] = [
      [await create({ title: { en: " " } }), "/title"],
      [await create({ title: { en: "T" }, body: { xx: "?" } }), "/body/xx"],
      [await create({ title: { en: "T" }, section: { en: "s".repeat(101) } }), "/section/en"],
      [await create({ title: { en: "T" }, key: "no spaces" }), "/key"],
      [await write(users.ada, "PUT", `/agent-api/settings/articles/${billing.id}`, { title: { en: "x".repeat(201) } }), "/title/en"],
      [await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/article-order`, { articleIds: [billing.id, billing.id] }), "/articleIds/1"],
      [await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/article-order`, { articleIds: [randomUUID()] }), "/articleIds/0"],
      [await write(users.ada, "PUT", "/agent-api/settings/announcements", { shortContent: { de: "Nur Deutsch" } }), "/shortContent/en"],
      [await write(users.ada, "PUT", "/agent-api/settings/announcements", { gameId: galaxy().id, shortContent: { en: "  " }, longContent: { de: "Mehr" } }), "/shortContent/en"],
      [await write(users.ada, "PUT", "/agent-api/settings/announcements", { environmentId: galaxy().environments.production!.id, shortContent: { en: "x" } }), "/gameId"],
    ];
    for (const [response, path] of cases) {
      expect(response.status, response.text).toBe(400);
      expect(issuePaths(response), response.text).toContain(path);
    }
    expect((await articles(galaxy().id))[0]).toEqual(billing);
  });
});

describe("announcements in the settings", () => {
  it("sets the shared, a game's and an environment's announcement and clears them; the page and the public API see each", async () => {
    const production = galaxy().environments.production!;
    const listed = await read(users.ada, "/agent-api/settings/announcements");
    expect(listed.body).toEqual({ primaryLanguage: "en", announcements: [] });

    const shared = await write(users.ada, "PUT", "/agent-api/settings/announcements", { shortContent: { en: "Maintenance tonight", de: "Wartung heute Nacht" } });
    expect(shared.status, shared.text).toBe(200);
    expect(shared.body).toMatchObject({ scope: "shared", gameId: null, environmentId: null, longContent: {} });
    expect((await playerPage(production.token, "de")).session.announcement).toEqual({ text: "Wartung heute Nacht", details: null, language: "de" });

    const game = await write(users.ada, "PUT", "/agent-api/settings/announcements", { gameId: galaxy().id, shortContent: { en: "Season 2 is live" }, longContent: { en: "New maps." } });
    expect(game.status, game.text).toBe(200);
    const env = await write(users.ada, "PUT", "/agent-api/settings/announcements", { gameId: galaxy().id, environmentId: production.id, shortContent: { en: "Production only" } });
    expect(env.status, env.text).toBe(200);
    expect((await playerPage(production.token, "en")).session.announcement).toEqual({ text: "Production only", details: null, language: "en" });
    expect((await playerPage(galaxy().environments.staging!.token, "en")).session.announcement).toEqual({ text: "Season 2 is live", details: "New maps.", language: "en" });
    const publicList = await stack.request("/announcements", { key: tenant.apiKeys.main! });
    expect((publicList.body as { announcements: { gameId: string | null; shortContent: Localized }[] }).announcements.map((a) => [a.gameId, a.shortContent.en])).toEqual([
      [null, "Maintenance tonight"], [galaxy().id, "Season 2 is live"],
    ]);
    expect(((await read(users.ada, "/agent-api/settings/announcements")).body as { announcements: AnnouncementDto[] }).announcements.map((a) => a.scope)).toEqual(["shared", "game", "environment"]);

    const cleared = await write(users.ada, "DELETE", `/agent-api/settings/announcements?gameId=${galaxy().id}&environmentId=${production.id}`);
    expect(cleared.status, cleared.text).toBe(204);
    expect((await playerPage(production.token, "en")).session.announcement).toEqual({ text: "Season 2 is live", details: "New maps.", language: "en" });
    expect((await write(users.ada, "DELETE", `/agent-api/settings/announcements?gameId=${galaxy().id}`)).status).toBe(204);
    expect((await playerPage(production.token, "en")).session.announcement).toEqual({ text: "Maintenance tonight", details: null, language: "en" });

    const entries = (await auditLog()).filter((entry) => entry.action.startsWith("announcement.")).reverse();
    expect(entries.map((entry) => [entry.action, entry.target?.type])).toEqual([
      ["announcement.set", "company"], ["announcement.set", "game"], ["announcement.set", "environment"], ["announcement.cleared", "environment"], ["announcement.cleared", "game"],
    ]);
    expect(entries[3]).toMatchObject({ target: { id: production.id }, before: { shortContent: { en: "Production only" } }, after: null });
    expect(entries[0]!.clientAddress).toBeTruthy();
  });
});

describe("an agent", () => {
  it("gets 403 on every operation", async () => {
    const billing = (await articles(galaxy().id))[0]!;
    const attempts = [
      await read(users.abe, `/agent-api/settings/games/${galaxy().id}/articles`),
      await write(users.abe, "POST", `/agent-api/settings/games/${galaxy().id}/articles`, { title: { en: "Sneaky" } }),
      await write(users.abe, "PUT", `/agent-api/settings/games/${galaxy().id}/article-order`, { articleIds: [billing.id] }),
      await write(users.abe, "PUT", `/agent-api/settings/articles/${billing.id}`, { title: { en: "Sneaky" } }),
      await write(users.abe, "DELETE", `/agent-api/settings/articles/${billing.id}`),
      await read(users.abe, "/agent-api/settings/announcements"),
      await write(users.abe, "PUT", "/agent-api/settings/announcements", { shortContent: { en: "Sneaky" } }),
      await write(users.abe, "DELETE", "/agent-api/settings/announcements"),
    ];
    for (const attempt of attempts) {
      expect(attempt.status, attempt.text).toBe(403);
      expect(attempt.body).toMatchObject({ code: "permission_denied" });
    }
    expect((await articles(galaxy().id))[0]).toEqual(billing);
  });
});
