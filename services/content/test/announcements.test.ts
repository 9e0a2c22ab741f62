// Announcements through the running service: GET, PUT and DELETE, and how the scopes fall back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteGame } from "../src/games/game.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;

beforeAll(async () => {
  ctx = await startContent();
});

afterAll(async () => {
  await ctx?.stop();
});

const unknownId = "7f1c1c1e-0000-4000-8000-000000000000";

describe("PutAnnouncement", () => {
  it("requires shortContent to be nonblank in the company's primary language", async () => {
    const company = await seedCompany(ctx.db, { primaryLanguage: "de" });
    const failure = await failureOf(ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Hello", de: "  " } }));
    expect(failure).toEqual({
      code: "invalid_argument",
      message: "shortContent must be nonblank in the primary language de",
      issues: [{ path: "/shortContent/de", message: expect.any(String) }],
    });
    const ok = await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { de: "Hallo" } });
    expect(ok.announcement?.shortContent).toEqual({ de: "Hallo" });
  });

  it("names keys that are not language codes", async () => {
    const company = await seedCompany(ctx.db);
    const failure = await failureOf(
      ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Hi", xx: "?" }, longContent: { english: "Hi" } }),
    );
    expect(failure.code).toBe("invalid_argument");
    expect(failure.issues?.map((issue) => issue.path)).toEqual(["/shortContent/xx", "/longContent/english"]);
  });

  it("replaces both maps whole, dropping omitted translations", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id);
    await ctx.client.putAnnouncement({
      companyId: company.id,
      gameId: game.id,
      shortContent: { en: "Old", fr: "Vieux" },
      longContent: { en: "Old details", de: "Alt" },
    });
    const replaced = await ctx.client.putAnnouncement({
      companyId: company.id,
      gameId: game.id,
      shortContent: { en: "New", ja: null },
      longContent: { fr: "Nouveau" },
    });
    expect(replaced.announcement).toMatchObject({ gameId: game.id, shortContent: { en: "New", ja: null }, longContent: { fr: "Nouveau" } });
    const { announcements } = await ctx.client.listAnnouncements({ companyId: company.id });
    expect(announcements).toHaveLength(1);
    expect(announcements[0]).toMatchObject({ gameId: game.id, shortContent: { en: "New", ja: null }, longContent: { fr: "Nouveau" } });
  });

  it("returns {} for a null or empty longContent", async () => {
    const company = await seedCompany(ctx.db);
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Hi" }, longContent: { en: "Details" } });
    const cleared = await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Hi" } });
    expect(cleared.announcement?.longContent).toEqual({});
    expect(cleared.announcement?.gameId).toBeUndefined();
    const empty = await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Hi" }, longContent: {} });
    expect(empty.announcement?.longContent).toEqual({});
    const { announcements } = await ctx.client.listAnnouncements({ companyId: company.id });
    expect(announcements[0]?.longContent).toEqual({});
  });

  it("answers NOT_FOUND for another company's, a deleted or an unknown game", async () => {
    const owner = await seedCompany(ctx.db);
    const other = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, owner.id);
    const { game: deleted } = await seedGame(ctx.db, other.id);
    await deleteGame(ctx.db, deleted.id);
    for (const gameId of [game.id, deleted.id, unknownId]) {
      expect(await failureOf(ctx.client.putAnnouncement({ companyId: other.id, gameId, shortContent: { en: "Hi" } }))).toMatchObject({
        code: "not_found",
        message: "game not found",
      });
    }
    expect((await ctx.client.listAnnouncements({ companyId: owner.id })).announcements).toEqual([]);
  });

  it("refuses a game id that is not a UUID", async () => {
    const company = await seedCompany(ctx.db);
    expect(await failureOf(ctx.client.putAnnouncement({ companyId: company.id, gameId: "42", shortContent: { en: "Hi" } }))).toMatchObject({
      code: "invalid_argument",
      issues: [{ path: "/gameId", message: "must be a UUID" }],
    });
    expect((await failureOf(ctx.client.deleteAnnouncement({ companyId: company.id, gameId: "42" }))).code).toBe("invalid_argument");
  });
});

describe("ListAnnouncements", () => {
  it("is empty for a company without announcements", async () => {
    const company = await seedCompany(ctx.db);
    expect((await ctx.client.listAnnouncements({ companyId: company.id })).announcements).toEqual([]);
  });

  it("lists the shared announcement first, then game announcements by game id", async () => {
    const company = await seedCompany(ctx.db);
    const games = [];
    for (let i = 0; i < 4; i += 1) games.push((await seedGame(ctx.db, company.id)).game);
    for (const game of [...games].reverse()) {
      await ctx.client.putAnnouncement({ companyId: company.id, gameId: game.id, shortContent: { en: game.slug } });
    }
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Everyone" } });
    const { announcements } = await ctx.client.listAnnouncements({ companyId: company.id });
    expect(announcements.map((a) => a.gameId ?? null)).toEqual([null, ...games.map((g) => g.id).sort()]);
    expect(announcements[0]?.shortContent).toEqual({ en: "Everyone" });
  });

  it("leaves out environment overrides and deleted games, and does not repeat inherited announcements", async () => {
    const company = await seedCompany(ctx.db);
    const live = await seedGame(ctx.db, company.id, { environments: ["production", "staging"] });
    const doomed = await seedGame(ctx.db, company.id);
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Shared" } });
    await ctx.client.putAnnouncement({ companyId: company.id, gameId: doomed.game.id, shortContent: { en: "Doomed" } });
    await ctx.client.putEnvironmentAnnouncement({
      companyId: company.id,
      environmentId: live.environment.id,
      shortContent: { en: "Production only" },
    });
    await deleteGame(ctx.db, doomed.game.id);
    const { announcements } = await ctx.client.listAnnouncements({ companyId: company.id });
    expect(announcements).toHaveLength(1);
    expect(announcements[0]).toMatchObject({ shortContent: { en: "Shared" }, longContent: {} });
    expect(announcements[0]?.gameId).toBeUndefined();
  });
});

describe("DeleteAnnouncement", () => {
  it("succeeds when nothing is configured, for the shared scope and for a game", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id);
    await ctx.client.deleteAnnouncement({ companyId: company.id });
    await ctx.client.deleteAnnouncement({ companyId: company.id, gameId: game.id });
    expect((await ctx.client.listAnnouncements({ companyId: company.id })).announcements).toEqual([]);
  });

  it("answers NOT_FOUND for another company's, a deleted or an unknown game", async () => {
    const owner = await seedCompany(ctx.db);
    const other = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, owner.id);
    await ctx.client.putAnnouncement({ companyId: owner.id, gameId: game.id, shortContent: { en: "Mine" } });
    const { game: deleted } = await seedGame(ctx.db, other.id);
    await deleteGame(ctx.db, deleted.id);
    for (const gameId of [game.id, deleted.id, unknownId]) {
      expect(await failureOf(ctx.client.deleteAnnouncement({ companyId: other.id, gameId }))).toMatchObject({ code: "not_found" });
    }
    expect((await ctx.client.listAnnouncements({ companyId: owner.id })).announcements).toHaveLength(1);
  });
});

describe("ResolveAnnouncement", () => {
  it("falls back from the environment override to the game, then to the shared announcement", async () => {
    const company = await seedCompany(ctx.db);
    const { game, environments } = await seedGame(ctx.db, company.id, { environments: ["production", "staging"] });
    const [production, staging] = [environments[0]!, environments[1]!];
    const resolve = async (environmentId: string) => {
      const { announcement, source } = await ctx.client.resolveAnnouncement({ companyId: company.id, environmentId });
      return { source, text: announcement?.shortContent?.en, gameId: announcement?.gameId };
    };

    expect(await resolve(production.id)).toEqual({ source: "none", text: undefined, gameId: undefined });
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Shared" } });
    expect(await resolve(production.id)).toEqual({ source: "shared", text: "Shared", gameId: undefined });
    await ctx.client.putAnnouncement({ companyId: company.id, gameId: game.id, shortContent: { en: "Game" } });
    expect(await resolve(production.id)).toEqual({ source: "game", text: "Game", gameId: game.id });
    await ctx.client.putEnvironmentAnnouncement({ companyId: company.id, environmentId: production.id, shortContent: { en: "Production" } });
    expect(await resolve(production.id)).toEqual({ source: "environment", text: "Production", gameId: game.id });
    expect(await resolve(staging.id)).toEqual({ source: "game", text: "Game", gameId: game.id });

    // Clearing the shared announcement leaves game and environment announcements in place.
    await ctx.client.deleteAnnouncement({ companyId: company.id });
    expect(await resolve(production.id)).toMatchObject({ source: "environment", text: "Production" });
    expect(await resolve(staging.id)).toMatchObject({ source: "game", text: "Game" });

    // Clearing the game announcement brings the shared one back as the fallback.
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Shared again" } });
    await ctx.client.deleteAnnouncement({ companyId: company.id, gameId: game.id });
    expect(await resolve(staging.id)).toMatchObject({ source: "shared", text: "Shared again" });
    expect(await resolve(production.id)).toMatchObject({ source: "environment", text: "Production" });

    await ctx.client.deleteEnvironmentAnnouncement({ companyId: company.id, environmentId: production.id });
    expect(await resolve(production.id)).toMatchObject({ source: "shared", text: "Shared again" });
    // Clearing an override that is not there succeeds.
    await ctx.client.deleteEnvironmentAnnouncement({ companyId: company.id, environmentId: production.id });
  });

  it("applies the primary-language rule to environment overrides", async () => {
    const company = await seedCompany(ctx.db, { primaryLanguage: "fr" });
    const { environment } = await seedGame(ctx.db, company.id);
    const failure = await failureOf(
      ctx.client.putEnvironmentAnnouncement({ companyId: company.id, environmentId: environment.id, shortContent: { en: "Hi" } }),
    );
    expect(failure).toMatchObject({ code: "invalid_argument", issues: [{ path: "/shortContent/fr" }] });
  });

  it("answers NOT_FOUND for another company's environment or one of a deleted game", async () => {
    const owner = await seedCompany(ctx.db);
    const other = await seedCompany(ctx.db);
    const { environment } = await seedGame(ctx.db, owner.id);
    const calls = (companyId: string, environmentId: string) => [
      () => ctx.client.resolveAnnouncement({ companyId, environmentId }),
      () => ctx.client.putEnvironmentAnnouncement({ companyId, environmentId, shortContent: { en: "Hi" } }),
      () => ctx.client.deleteEnvironmentAnnouncement({ companyId, environmentId }),
    ];
    for (const call of calls(other.id, environment.id)) expect((await failureOf(call())).code).toBe("not_found");

    const { game, environment: orphan } = await seedGame(ctx.db, owner.id);
    await deleteGame(ctx.db, game.id);
    for (const call of calls(owner.id, orphan.id)) expect((await failureOf(call())).code).toBe("not_found");
  });
});
