// Tenant isolation, reference data and API keys through the running service.
import { OPERATOR } from "../src/audit/audit-log.ts";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { createApiKey, revokeApiKey } from "../src/api-keys/api-key.service.ts";
import { createField } from "../src/fields/field.service.ts";
import { createEnvironment, createGame, createResource, deleteGame } from "../src/games/game.service.ts";
import { createTag } from "../src/tags/tag.service.ts";
import { createUser } from "../src/users/user.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";
import { seedApiKey, seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;

beforeAll(async () => {
  ctx = await startContent();
});

afterAll(async () => {
  await ctx?.stop();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Company A and B, each with a game, tags, fields and announcements. */
async function twoTenants() {
  const tenants = [];
  for (const label of ["a", "b"]) {
    const company = await seedCompany(ctx.db);
    const { game, environment } = await seedGame(ctx.db, company.id, { slug: "same-slug", resources: [{ key: "faq", title: "FAQ" }] });
    await createTag(ctx.db, company.id, { gameId: null, name: `${label}-wide` });
    await createTag(ctx.db, company.id, { gameId: game.id, name: `${label}-game` });
    await createField(ctx.db, company.id, { gameId: game.id, key: `${label}_field`, name: "F", type: "text" });
    await ctx.client.putAnnouncement({ companyId: company.id, gameId: game.id, shortContent: { en: label } });
    tenants.push({ company, game, environment });
  }
  return tenants as [(typeof tenants)[0], (typeof tenants)[0]];
}

describe("tenant isolation", () => {
  it("shows a company only its own games, tags, fields and announcements", async () => {
    const [a, b] = await twoTenants();
    const games = (await ctx.client.listGames({ companyId: b.company.id })).games;
    expect(games.map((g) => g.id)).toEqual([b.game.id]);
    expect((await ctx.client.listTags({ companyId: b.company.id })).tags.map((t) => t.name)).toEqual(["b-wide", "b-game"]);
    expect((await ctx.client.listFields({ companyId: b.company.id })).fields.map((f) => f.key)).toEqual(["b_field"]);
    const announcements = (await ctx.client.listAnnouncements({ companyId: b.company.id })).announcements;
    expect(announcements.map((x) => x.gameId)).toEqual([b.game.id]);
    expect(a.game.slug).toBe(b.game.slug);
  });

  it("answers NOT_FOUND for another company's game, exactly like an unknown one", async () => {
    const [a, b] = await twoTenants();
    const foreign = await failureOf(ctx.client.getGame({ companyId: b.company.id, gameId: a.game.id }));
    const unknown = await failureOf(ctx.client.getGame({ companyId: b.company.id, gameId: "5d2b8a55-9c61-4f7e-8f43-0d3f3c2f7a10" }));
    expect(foreign).toEqual({ code: "not_found", message: "game not found", issues: undefined });
    expect(unknown).toEqual(foreign);
    expect((await failureOf(ctx.client.getGame({ companyId: b.company.id, gameId: "not-a-uuid" }))).code).toBe("not_found");
  });

  it("checks user access within the company only", async () => {
    const [a, b] = await twoTenants();
    const { game: second } = await seedGame(ctx.db, a.company.id);
    const user = await createUser(ctx.db, a.company.id, { name: "Alice", email: "alice@example.com", gameIds: [a.game.id] });
    const check = (companyId: string, userId: string, gameId: string) =>
      ctx.client.checkUserAccess({ companyId, userId, gameId }).then((r) => r.hasAccess);
    expect(await check(a.company.id, user.id, a.game.id)).toBe(true);
    expect(await check(a.company.id, user.id, second.id)).toBe(false);
    expect(await check(b.company.id, user.id, a.game.id)).toBe(false);
    expect(await check(b.company.id, user.id, b.game.id)).toBe(false);
    expect(await check(a.company.id, "3a0a8c53-86a5-4c2b-9b7b-2e6b36a3a0c1", a.game.id)).toBe(false);
    expect(await check(a.company.id, "nobody", a.game.id)).toBe(false);
    await deleteGame(ctx.db, a.game.id);
    expect(await check(a.company.id, user.id, a.game.id)).toBe(false);
  });

  it("gives an admin access to every live game of the company, as their games list says, and no other", async () => {
    const [a, b] = await twoTenants();
    const { game: second } = await seedGame(ctx.db, a.company.id);
    const admin = await createUser(ctx.db, a.company.id, { name: "Ada", email: "ada-admin@example.com", role: "admin", gameIds: [] });
    const check = (companyId: string, gameId: string) => ctx.client.checkUserAccess({ companyId, userId: admin.id, gameId }).then((r) => r.hasAccess);
    expect(await check(a.company.id, a.game.id)).toBe(true);
    expect(await check(a.company.id, second.id)).toBe(true);
    expect(await check(a.company.id, b.game.id)).toBe(false);
    expect(await check(b.company.id, b.game.id)).toBe(false);
    await deleteGame(ctx.db, second.id);
    expect(await check(a.company.id, second.id)).toBe(false);
  });

  it("does not let a user get access to another company's game", async () => {
    const [a, b] = await twoTenants();
    await expect(createUser(ctx.db, a.company.id, { name: "Mallory", email: "m@example.com", gameIds: [b.game.id] })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("games", () => {
  it("returns a game with its environments and resources, and finds it by environment token", async () => {
    const company = await seedCompany(ctx.db);
    const jwks = { keys: [{ kty: "RSA", kid: "k1", n: "sXch", e: "AQAB", alg: "RS256" }] };
    const game = await createGame(ctx.db, company.id, {
      name: "Galaxy",
      slug: "galaxy",
      languages: ["en", "de"],
      metadataJwks: jwks,
      blockUnverifiedPlayers: true,
    });
    const { environments } = await seedGame(ctx.db, company.id, { slug: "other" });
    const production = await createEnvironment(ctx.db, company.id, game.id, { name: "production" });
    await createEnvironment(ctx.db, company.id, game.id, { name: "staging" });
    await createResource(ctx.db, company.id, game.id, { key: "faq", title: "FAQ" });
    await createResource(ctx.db, company.id, game.id, { key: "billing", title: "Billing" });

    const got = await ctx.client.getGame({ companyId: company.id, gameId: game.id });
    expect(got.game).toMatchObject({
      id: game.id,
      companyId: company.id,
      name: "Galaxy",
      slug: "galaxy",
      languages: ["en", "de"],
      blockUnverifiedPlayers: true,
      metadataJwks: jwks,
    });
    expect(timestampDate(got.game!.createdAt!).getTime()).toBe(game.createdAt.getTime());
    expect(got.environments.map((e) => e.name)).toEqual(["production", "staging"]);
    expect(got.environments[0]?.token).toMatch(/^[0-9a-f-]{36}$/);
    // In the order they were made (a tenant file's order), not by key.
    expect(got.resources.map((r) => [r.key, r.title])).toEqual([["faq", "FAQ"], ["billing", "Billing"]]);

    const byToken = await ctx.client.getEnvironmentByToken({ token: production.token });
    expect(byToken.companyId).toBe(company.id);
    expect(byToken.environment).toMatchObject({ id: production.id, gameId: game.id, name: "production", token: production.token });
    expect(byToken.game?.id).toBe(game.id);
    expect(byToken.resources.map((r) => r.key)).toEqual(["faq", "billing"]);
    expect(environments).toHaveLength(1);
    expect((await failureOf(ctx.client.getEnvironmentByToken({ token: "2f8a3cbe-1d51-4c55-bb1b-2b5c9f0f1f40" }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.getEnvironmentByToken({ token: "nope" }))).code).toBe("not_found");
  });

  it("lists live games by creation and leaves out a deleted game everywhere", async () => {
    const company = await seedCompany(ctx.db);
    await seedGame(ctx.db, company.id, { slug: "first" });
    const second = await seedGame(ctx.db, company.id, { slug: "second" });
    await createTag(ctx.db, company.id, { gameId: null, name: "wide" });
    await createTag(ctx.db, company.id, { gameId: second.game.id, name: "second-only" });
    await createField(ctx.db, company.id, { gameId: second.game.id, key: "second_only", name: "S", type: "boolean" });
    expect((await ctx.client.listGames({ companyId: company.id })).games.map((g) => g.slug)).toEqual(["first", "second"]);

    await deleteGame(ctx.db, second.game.id);
    expect((await ctx.client.listGames({ companyId: company.id })).games.map((g) => g.slug)).toEqual(["first"]);
    expect((await ctx.client.listTags({ companyId: company.id })).tags.map((t) => t.name)).toEqual(["wide"]);
    expect((await ctx.client.listFields({ companyId: company.id })).fields).toEqual([]);
    expect(await failureOf(ctx.client.getGame({ companyId: company.id, gameId: second.game.id }))).toMatchObject({
      code: "not_found",
      message: "game not found",
    });
    expect((await failureOf(ctx.client.getEnvironmentByToken({ token: second.environment.token }))).code).toBe("not_found");
    // The slug of a deleted game is free again.
    await seedGame(ctx.db, company.id, { slug: "second" });
    await expect(seedGame(ctx.db, company.id, { slug: "first" })).rejects.toMatchObject({ code: "conflict" });
    await expect(deleteGame(ctx.db, second.game.id)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("tags and fields", () => {
  it("lists company-wide definitions first with their public shape", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id);
    await createTag(ctx.db, company.id, { gameId: game.id, name: "crash", description: "It crashed", isSkill: true });
    await createTag(ctx.db, company.id, { gameId: null, name: "vip", isAiTag: true });
    await createField(ctx.db, company.id, { gameId: game.id, key: "ship", name: "Ship", type: "dropdown", options: ["a", "b"] });
    await createField(ctx.db, company.id, { gameId: null, key: "level", name: "Level", type: "number", description: "Player level" });

    const { tags } = await ctx.client.listTags({ companyId: company.id });
    expect(tags).toMatchObject([
      { name: "vip", isAiTag: true, isSkill: false },
      { gameId: game.id, name: "crash", description: "It crashed", isAiTag: false, isSkill: true },
    ]);
    expect(tags[0]?.gameId).toBeUndefined();
    expect(tags[0]?.description).toBeUndefined();
    expect(tags[0]?.createdAt).toBeDefined();

    const { fields } = await ctx.client.listFields({ companyId: company.id });
    expect(fields).toMatchObject([
      { key: "level", name: "Level", type: "number", description: "Player level", isAiField: false, options: [] },
      { gameId: game.id, key: "ship", type: "dropdown", options: ["a", "b"] },
    ]);
    expect(fields[0]?.gameId).toBeUndefined();
  });

  it("keeps names unique per company and game scope", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id);
    await createTag(ctx.db, company.id, { gameId: null, name: "bug" });
    await createTag(ctx.db, company.id, { gameId: game.id, name: "bug" });
    await expect(createTag(ctx.db, company.id, { gameId: null, name: "bug" })).rejects.toMatchObject({ code: "conflict" });
    await createField(ctx.db, company.id, { gameId: null, key: "k", name: "K", type: "text" });
    await expect(createField(ctx.db, company.id, { gameId: null, key: "k", name: "K2", type: "date" })).rejects.toMatchObject({
      code: "conflict",
    });
  });
});

describe("companies", () => {
  it("returns the company's settings", async () => {
    const company = await seedCompany(ctx.db, { primaryLanguage: "ja", allowImmediateDeletion: true, autoCloseWaitingAfterHours: 36.5 });
    const { company: got } = await ctx.client.getCompany({ companyId: company.id });
    expect(got).toMatchObject({ id: company.id, primaryLanguage: "ja", allowImmediateDeletion: true, autoCloseWaitingAfterHours: 36.5 });
    expect((await failureOf(ctx.client.getCompany({ companyId: "0f5d3a9e-7d3b-4a2b-8d6a-6c7c0e6f5b21" }))).code).toBe("not_found");
  });
});

describe("API keys", () => {
  it("authenticates a live key by the SHA-256 of the secret and stops after revocation", async () => {
    const company = await seedCompany(ctx.db);
    const { apiKey, secret } = await seedApiKey(ctx.db, company.id);
    expect(await ctx.client.authenticateApiKey({ keyHash: sha256(secret) })).toMatchObject({ companyId: company.id, apiKeyId: apiKey.id });
    expect(await ctx.client.authenticateApiKey({ keyHash: sha256(secret).toUpperCase() })).toMatchObject({ companyId: company.id });

    const stored = await ctx.db.selectFrom("api_keys").selectAll().where("id", "=", apiKey.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).toBe(sha256(secret));
    expect(JSON.stringify(stored)).not.toContain(secret);

    await revokeApiKey(ctx.db, apiKey.id, { actor: OPERATOR });
    expect((await failureOf(ctx.client.authenticateApiKey({ keyHash: sha256(secret) }))).code).toBe("not_found");
    // Revoking again changes nothing.
    expect((await revokeApiKey(ctx.db, apiKey.id, { actor: OPERATOR })).revokedAt).toEqual(
      (await ctx.db.selectFrom("api_keys").select("revoked_at").where("id", "=", apiKey.id).executeTakeFirstOrThrow()).revoked_at,
    );
  });

  it("answers a key's own rate limit and its company's with the authentication, unset when not configured", async () => {
    const limited = await seedCompany(ctx.db, { apiRateLimitPerMinute: 600 });
    const own = await createApiKey(ctx.db, limited.id, { name: "own", rateLimitPerMinute: 60 }, { actor: OPERATOR });
    const shared = await createApiKey(ctx.db, limited.id, { name: "shared" }, { actor: OPERATOR });
    expect(await ctx.client.authenticateApiKey({ keyHash: sha256(own.secret) })).toMatchObject({ keyRateLimitPerMinute: 60, companyRateLimitPerMinute: 600 });
    const plain = await ctx.client.authenticateApiKey({ keyHash: sha256(shared.secret) });
    expect(plain.companyRateLimitPerMinute).toBe(600);
    expect(plain.keyRateLimitPerMinute).toBeUndefined();
    const unlimited = await seedApiKey(ctx.db, (await seedCompany(ctx.db)).id);
    const defaults = await ctx.client.authenticateApiKey({ keyHash: sha256(unlimited.secret) });
    expect([defaults.keyRateLimitPerMinute, defaults.companyRateLimitPerMinute]).toEqual([undefined, undefined]);
    await expect(createApiKey(ctx.db, limited.id, { name: "bad", rateLimitPerMinute: 0 }, { actor: OPERATOR })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(seedCompany(ctx.db, { apiRateLimitPerMinute: 2.5 })).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("answers NOT_FOUND for unknown and malformed hashes alike", async () => {
    for (const keyHash of [sha256("psk_unknown"), "", "psk_plaintext", "z".repeat(64)]) {
      expect((await failureOf(ctx.client.authenticateApiKey({ keyHash }))).code).toBe("not_found");
    }
  });

  it("keeps other keys of the company working when one is revoked", async () => {
    const company = await seedCompany(ctx.db);
    const first = await seedApiKey(ctx.db, company.id, "first");
    const second = await seedApiKey(ctx.db, company.id, "second");
    await revokeApiKey(ctx.db, first.apiKey.id, { actor: OPERATOR });
    expect((await ctx.client.authenticateApiKey({ keyHash: sha256(second.secret) })).apiKeyId).toBe(second.apiKey.id);
  });
});
