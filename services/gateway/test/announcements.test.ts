// GET, PUT and DELETE /announcements and how the scopes fall back (clearing a game's
// announcement shows the shared one; clearing the shared one keeps the others), through the REST API of the real stack.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA, tenantB } from "./tenants.ts";

describe("announcements through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let b: TenantResult;
  let keyA: string;
  let keyB: string;

  const put = (key: string, json: unknown) => stack.request("/announcements", { method: "PUT", key, json });
  const list = async (key: string) => (await stack.request("/announcements", { key })).body as { announcements: { gameId: string | null; shortContent: object; longContent: object }[] };

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(tenantA);
    b = await stack.applyTenant(tenantB);
    keyA = a.apiKeys.main!;
    keyB = b.apiKeys.main!;
  });
  afterAll(() => stack?.stop());
  beforeEach(async () => {
    for (const [key, tenant] of [[keyA, a], [keyB, b]] as const) {
      await stack.request("/announcements", { method: "DELETE", key });
      for (const game of Object.values(tenant.games)) await stack.request(`/announcements/${game.id}`, { method: "DELETE", key });
    }
  });

  it("lists nothing while only environment overrides exist (they are excluded)", async () => {
    expect(await list(keyA)).toEqual({ announcements: [] });
  });

  it("creates the shared announcement and returns it", async () => {
    const response = await put(keyA, { shortContent: { en: "Servers are back", fr: "Les serveurs sont de retour" }, longContent: { en: "Details" }, gameId: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ announcement: { shortContent: { en: "Servers are back", fr: "Les serveurs sont de retour" }, longContent: { en: "Details" }, gameId: null } });
    expect(await list(keyA)).toEqual({ announcements: [{ shortContent: { en: "Servers are back", fr: "Les serveurs sont de retour" }, longContent: { en: "Details" }, gameId: null }] });
  });

  it("refuses shortContent that is blank or missing in the company's primary language (400)", async () => {
    for (const shortContent of [{ fr: "Bonjour" }, { en: "   " }, { en: null, fr: "x" }, {}]) {
      const response = await put(keyA, { shortContent, longContent: null, gameId: null });
      expect(response.status, JSON.stringify(shortContent)).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_argument" });
    }
    // Company B's primary language is German.
    expect((await put(keyB, { shortContent: { en: "English only" }, longContent: null, gameId: null })).status).toBe(400);
    expect((await put(keyB, { shortContent: { de: "Wartung" }, longContent: null, gameId: null })).status).toBe(200);
    expect(await list(keyA)).toEqual({ announcements: [] });
  });

  it("refuses invalid input with a VALIDATION_ERROR naming the value", async () => {
    const missing = await put(keyA, { shortContent: { en: "x" }, gameId: null });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ details: { type: "VALIDATION_ERROR", issues: [{ path: "/longContent" }] } });
    const badLanguage = await put(keyA, { shortContent: { en: "x", klingon: "y" }, longContent: null, gameId: null });
    expect(badLanguage.body).toMatchObject({ details: { issues: [{ path: "/shortContent/klingon" }] } });
    const badGame = await put(keyA, { shortContent: { en: "x" }, longContent: null, gameId: "galaxy" });
    expect(badGame.body).toMatchObject({ details: { issues: [{ path: "/gameId" }] } });
  });

  it("replaces both maps as a whole: omitted translations are removed", async () => {
    const galaxy = a.games.galaxy!.id;
    await put(keyA, { shortContent: { en: "One", fr: "Un", de: "Eins" }, longContent: { en: "Long", de: "Lang" }, gameId: galaxy });
    const replaced = await put(keyA, { shortContent: { en: "Two" }, longContent: { fr: "Long FR" }, gameId: galaxy });
    expect(replaced.body).toEqual({ announcement: { shortContent: { en: "Two" }, longContent: { fr: "Long FR" }, gameId: galaxy } });
    expect(await list(keyA)).toEqual({ announcements: [{ shortContent: { en: "Two" }, longContent: { fr: "Long FR" }, gameId: galaxy }] });
  });

  it("clears the details for longContent null and {} (answered as {})", async () => {
    await put(keyA, { shortContent: { en: "x" }, longContent: { en: "details" }, gameId: null });
    for (const longContent of [null, {}]) {
      const response = await put(keyA, { shortContent: { en: "x" }, longContent, gameId: null });
      expect(response.body).toEqual({ announcement: { shortContent: { en: "x" }, longContent: {}, gameId: null } });
      expect((await list(keyA)).announcements[0]!.longContent).toEqual({});
      await put(keyA, { shortContent: { en: "x" }, longContent: { en: "details" }, gameId: null });
    }
  });

  it("keeps null translations as null", async () => {
    const response = await put(keyA, { shortContent: { en: "x", fr: null }, longContent: { de: null }, gameId: null });
    expect(response.body).toEqual({ announcement: { shortContent: { en: "x", fr: null }, longContent: { de: null }, gameId: null } });
  });

  it("lists shared first, then game announcements by game id", async () => {
    const gameIds = [a.games.racer!.id, a.games.galaxy!.id, a.games.farm!.id];
    for (const gameId of gameIds) await put(keyA, { shortContent: { en: `for ${gameId}` }, longContent: null, gameId });
    await put(keyA, { shortContent: { en: "shared" }, longContent: null, gameId: null });
    const { announcements } = await list(keyA);
    expect(announcements.map((x) => x.gameId)).toEqual([null, ...[...gameIds].sort()]);
  });

  it("answers 404 for a PUT on an unknown game or another company's game", async () => {
    for (const gameId of ["00000000-0000-4000-8000-000000000000", b.games.castle!.id]) {
      const response = await put(keyA, { shortContent: { en: "x" }, longContent: null, gameId });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: "not_found" });
    }
    expect(await list(keyB)).toEqual({ announcements: [] });
  });

  it("DELETE /announcements clears the shared one, succeeds when there is none, and keeps game announcements", async () => {
    const farm = a.games.farm!.id;
    await put(keyA, { shortContent: { en: "shared" }, longContent: null, gameId: null });
    await put(keyA, { shortContent: { en: "farm" }, longContent: null, gameId: farm });
    expect((await stack.request("/announcements", { method: "DELETE", key: keyA })).body).toEqual({ success: true });
    expect((await list(keyA)).announcements.map((x) => x.gameId)).toEqual([farm]);
    expect((await stack.request("/announcements", { method: "DELETE", key: keyA })).body).toEqual({ success: true });
  });

  it("DELETE /announcements/{gameId} clears a game's announcement and succeeds when there is none", async () => {
    const farm = a.games.farm!.id;
    await put(keyA, { shortContent: { en: "farm" }, longContent: null, gameId: farm });
    expect((await stack.request(`/announcements/${farm}`, { method: "DELETE", key: keyA })).body).toEqual({ success: true });
    expect(await list(keyA)).toEqual({ announcements: [] });
    expect((await stack.request(`/announcements/${farm}`, { method: "DELETE", key: keyA })).body).toEqual({ success: true });
  });

  it("DELETE /announcements/not-a-uuid is a 400 naming /path/gameId", async () => {
    const response = await stack.request("/announcements/not-a-uuid", { method: "DELETE", key: keyA });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/path/gameId" }] } });
  });

  it("DELETE /announcements/{gameId} of an unknown or another company's game is a 404", async () => {
    for (const gameId of ["00000000-0000-4000-8000-000000000000", b.games.castle!.id]) {
      const response = await stack.request(`/announcements/${gameId}`, { method: "DELETE", key: keyA });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: "not_found" });
    }
  });

  it("keeps companies apart: B never sees A's announcements", async () => {
    await put(keyA, { shortContent: { en: "A only" }, longContent: null, gameId: null });
    await put(keyA, { shortContent: { en: "A game" }, longContent: null, gameId: a.games.galaxy!.id });
    expect(await list(keyB)).toEqual({ announcements: [] });
    await put(keyB, { shortContent: { de: "Nur B" }, longContent: null, gameId: b.games.castle!.id });
    expect((await list(keyA)).announcements.map((x) => x.gameId)).toEqual([null, a.games.galaxy!.id]);
    expect((await list(keyB)).announcements.map((x) => x.gameId)).toEqual([b.games.castle!.id]);
  });

  it("reads its own writes immediately, and another key of the company sees them too", async () => {
    await list(keyA); // cached empty
    await put(keyA, { shortContent: { en: "now" }, longContent: null, gameId: null });
    expect((await list(keyA)).announcements).toHaveLength(1);
    expect((await list(a.apiKeys.second!)).announcements).toHaveLength(1);
  });

  // Last: deleting a game cannot be undone.
  it("excludes a deleted game's announcement, and the deleted game is 'not found' for PUT and DELETE", async () => {
    const racer = a.games.racer!.id;
    await put(keyA, { shortContent: { en: "racer" }, longContent: null, gameId: racer });
    expect((await list(keyA)).announcements.map((x) => x.gameId)).toEqual([racer]);
    await stack.admin(["games", "delete", racer]);
    // The gateway learns of it from content's event (its cache would otherwise answer for a minute).
    await eventually(async () => (await list(keyA)).announcements.length === 0);
    expect((await stack.request("/games", { key: keyA })).body).not.toMatchObject({ games: expect.arrayContaining([expect.objectContaining({ id: racer })]) });
    expect((await put(keyA, { shortContent: { en: "x" }, longContent: null, gameId: racer })).status).toBe(404);
    expect((await stack.request(`/announcements/${racer}`, { method: "DELETE", key: keyA })).status).toBe(404);
  });
});
