// GET /games, /tags and /fields through the real stack: exact shapes, tenant isolation, event-driven freshness.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA, tenantB } from "./tenants.ts";

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("games, tags and fields through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let b: TenantResult;

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(tenantA);
    b = await stack.applyTenant(tenantB);
  });
  afterAll(() => stack?.stop());

  it("GET /games lists the company's games with exactly id, name, slug, languages, createdAt, updatedAt", async () => {
    const response = await stack.request("/games", { key: a.apiKeys.main });
    expect(response.status).toBe(200);
    const { games } = response.body as { games: Record<string, unknown>[] };
    expect(games.map((g) => g.name).sort()).toEqual(["Galaxy Raiders", "Pixel Farm", "Turbo Racer"]);
    for (const game of games) {
      expect(Object.keys(game)).toEqual(["id", "name", "slug", "languages", "createdAt", "updatedAt"]);
      expect(game.createdAt).toMatch(isoDateTime);
      expect(game.updatedAt).toMatch(isoDateTime);
    }
    const galaxy = games.find((g) => g.id === a.games.galaxy!.id);
    expect(galaxy).toMatchObject({ name: "Galaxy Raiders", slug: "galaxy-raiders", languages: ["en", "fr", "de"] });
  });

  it("GET /tags lists company-wide (gameId null) and game tags, null where empty", async () => {
    const response = await stack.request("/tags", { key: a.apiKeys.main });
    const { tags } = response.body as { tags: Record<string, unknown>[] };
    for (const tag of tags) {
      expect(Object.keys(tag)).toEqual(["gameId", "name", "description", "isAiTag", "isSkill", "createdAt", "updatedAt"]);
      expect(tag.createdAt).toMatch(isoDateTime);
    }
    const byName = Object.fromEntries(tags.map((t) => [t.name, t]));
    expect(byName.bug).toMatchObject({ gameId: null, description: "Something does not work", isAiTag: false, isSkill: false });
    expect(byName.vip).toMatchObject({ gameId: null, description: null, isAiTag: true, isSkill: false });
    expect(byName.crash).toMatchObject({ gameId: a.games.galaxy!.id, description: "The client crashed", isSkill: true });
    expect(Object.keys(byName).sort()).toEqual(["bug", "crash", "vip"]);
  });

  it("GET /fields lists field definitions with exactly gameId, name, description, type, key, isAiField", async () => {
    const response = await stack.request("/fields", { key: a.apiKeys.main });
    const { fields } = response.body as { fields: Record<string, unknown>[] };
    for (const field of fields) expect(Object.keys(field)).toEqual(["gameId", "name", "description", "type", "key", "isAiField"]);
    const byKey = Object.fromEntries(fields.map((f) => [f.key, f]));
    expect(byKey.level).toEqual({ gameId: null, name: "Player level", description: null, type: "number", key: "level", isAiField: false });
    expect(byKey.ship_class).toEqual({ gameId: a.games.galaxy!.id, name: "Ship class", description: "Ship flown", type: "dropdown", key: "ship_class", isAiField: true });
  });

  it("never shows one company's reference data to another", async () => {
    const [gamesB, tagsB, fieldsB] = await Promise.all(["/games", "/tags", "/fields"].map((path) => stack.request(path, { key: b.apiKeys.main })));
    expect((gamesB!.body as { games: { id: string }[] }).games.map((g) => g.id)).toEqual([b.games.castle!.id]);
    expect((tagsB!.body as { tags: { name: string }[] }).tags.map((t) => t.name)).toEqual(["beta-only"]);
    expect((fieldsB!.body as { fields: { key: string }[] }).fields.map((f) => f.key)).toEqual(["beta_field"]);
    const gamesA = await stack.request("/games", { key: a.apiKeys.main });
    expect(JSON.stringify(gamesA.body)).not.toContain(b.games.castle!.id);
  });

  it("every key of a company sees the same data", async () => {
    const [main, second] = await Promise.all([stack.request("/games", { key: a.apiKeys.main }), stack.request("/games", { key: a.apiKeys.second })]);
    expect(second.body).toEqual(main.body);
  });
});
