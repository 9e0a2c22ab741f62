import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { validateResponse } from "../openapi/validation.ts";
import { fakeNats, startTestGateway, type TestGateway } from "../test-helpers.ts";

const A = "aaaaaaaa-0000-4000-8000-00000000000a";
const B = "bbbbbbbb-0000-4000-8000-00000000000b";
const UNKNOWN_GAME = "00000000-0000-4000-8000-000000000000";

describe("reference and announcement routes", () => {
  let t: TestGateway;
  let nats: ReturnType<typeof fakeNats>;
  let keyA: string;
  let keyB: string;
  let gameA: { id: string };
  let gameB: { id: string };

  // Every answer of these tests must match the OpenAPI document.
  const call = async (operationId: string, path: string, init: Parameters<TestGateway["request"]>[1] = {}) => {
    const response = await t.request(path, init);
    expect(validateResponse(operationId, response.status, response.body, response.headers)).toBeNull();
    return response;
  };

  const event = (companyId: string, type = "content.game.updated", data: Record<string, unknown> = {}) =>
    nats.publish(`content.${type.split(".").slice(1).join(".")}`, { id: crypto.randomUUID(), type, occurredAt: new Date().toISOString(), companyId, data });

  beforeAll(async () => {
    nats = fakeNats();
    t = await startTestGateway({ nc: nats.nc });
    keyA = t.content.addKey(A);
    keyB = t.content.addKey(B);
    gameA = t.content.addGame(A, "Alpha");
    gameB = t.content.addGame(B, "Beta");
  });
  afterAll(() => t.stop());
  beforeEach(() => {
    t.gateway.caches.reference.clear();
    t.content.announcements.clear();
    t.content.calls.clear();
  });

  it("subscribes to every content event, every ticket event (live streams), the session events (verified, ended) and the support application's ended sessions", () => {
    expect(nats.subjects).toEqual(["content.>", "tickets.ticket.>", "players.session.verified", "players.session.ended", "content.agent_sessions.ended"]);
  });

  it("GET /games lists the company's games with exactly the fields id, name, slug, languages, createdAt and updatedAt", async () => {
    const response = await call("listGames", "/games", { key: keyA });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      games: [{ id: gameA.id, name: "Alpha", slug: "alpha", languages: ["en", "de"], createdAt: "2026-01-02T03:04:05.000Z", updatedAt: "2026-02-03T04:05:06.000Z" }],
    });
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("GET /tags lists tags with null for empty gameId and description", async () => {
    const response = await call("listTags", "/tags", { key: keyA });
    expect(response.body).toEqual({
      tags: [
        { gameId: null, name: `vip-${A}`, description: "Very important", isAiTag: false, isSkill: true, createdAt: "2026-01-02T03:04:05.000Z", updatedAt: "2026-02-03T04:05:06.000Z" },
        { gameId: gameA.id, name: "billing", description: null, isAiTag: true, isSkill: false, createdAt: "2026-01-02T03:04:05.000Z", updatedAt: "2026-02-03T04:05:06.000Z" },
      ],
    });
  });

  it("GET /fields lists field definitions without internal options", async () => {
    const response = await call("listFields", "/fields", { key: keyA });
    expect(response.body).toEqual({
      fields: [
        { gameId: null, name: "Server", description: "Game server", type: "dropdown", key: "server", isAiField: false },
        { gameId: null, name: "Level", description: null, type: "number", key: "level", isAiField: true },
      ],
    });
  });

  it("GET /announcements is an empty list when none is configured", async () => {
    expect((await call("listAnnouncements", "/announcements", { key: keyA })).body).toEqual({ announcements: [] });
  });

  it("PUT /announcements stores shared and game announcements; GET lists shared first", async () => {
    const shared = await call("putAnnouncement", "/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "Maintenance", de: null }, longContent: null, gameId: null } });
    expect(shared.status).toBe(200);
    expect(shared.body).toEqual({ announcement: { shortContent: { en: "Maintenance", de: null }, longContent: {}, gameId: null } });
    const game = await call("putAnnouncement", "/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "Alpha news" }, longContent: { en: "**Details**" }, gameId: gameA.id } });
    expect(game.body).toEqual({ announcement: { shortContent: { en: "Alpha news" }, longContent: { en: "**Details**" }, gameId: gameA.id } });
    const list = await call("listAnnouncements", "/announcements", { key: keyA });
    expect(list.body).toEqual({
      announcements: [
        { shortContent: { en: "Maintenance", de: null }, longContent: {}, gameId: null },
        { shortContent: { en: "Alpha news" }, longContent: { en: "**Details**" }, gameId: gameA.id },
      ],
    });
  });

  it("PUT /announcements validates the body against the document", async () => {
    const cases = [
      [{ shortContent: { en: "x" }, longContent: null }, "/gameId"],
      [{ shortContent: { xx: "x" }, longContent: null, gameId: null }, "/shortContent/xx"],
      [{ shortContent: { en: 5 }, longContent: null, gameId: null }, "/shortContent/en"],
      [{ shortContent: { en: "x" }, longContent: null, gameId: "not-a-uuid" }, "/gameId"],
      [{ shortContent: { en: "x" }, longContent: null, gameId: null, extra: 1 }, "/extra"],
    ] as const;
    for (const [json, path] of cases) {
      const response = await call("putAnnouncement", "/announcements", { method: "PUT", key: keyA, json });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: expect.arrayContaining([expect.objectContaining({ path })]) } });
    }
    expect(t.content.count("putAnnouncement")).toBe(0);
  });

  it("PUT /announcements passes content's refusals on: 400 primary language, 404 unknown or other company's game", async () => {
    const blank = await call("putAnnouncement", "/announcements", { method: "PUT", key: keyA, json: { shortContent: { de: "Nur Deutsch" }, longContent: null, gameId: null } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ code: "invalid_argument" });
    for (const gameId of [UNKNOWN_GAME, gameB.id]) {
      const response = await call("putAnnouncement", "/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "x" }, longContent: null, gameId } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ code: "not_found", message: "Game not found" });
    }
  });

  it("DELETE /announcements clears the shared one and succeeds when none exists", async () => {
    await call("putAnnouncement", "/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "x" }, longContent: null, gameId: null } });
    for (let i = 0; i < 2; i++) {
      const response = await call("deleteSharedAnnouncement", "/announcements", { method: "DELETE", key: keyA });
      expect(response.body).toEqual({ success: true });
    }
    expect((await call("listAnnouncements", "/announcements", { key: keyA })).body).toEqual({ announcements: [] });
  });

  it("DELETE /announcements/{gameId}: 200, 400 for a malformed id, 404 for an unknown or foreign game", async () => {
    expect((await call("deleteGameAnnouncement", `/announcements/${gameA.id}`, { method: "DELETE", key: keyA })).body).toEqual({ success: true });
    const invalid = await call("deleteGameAnnouncement", "/announcements/not-a-uuid", { method: "DELETE", key: keyA });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      code: "invalid_argument",
      message: "Request validation failed",
      details: { type: "VALIDATION_ERROR", issues: [{ path: "/path/gameId", message: "must be a valid uuid" }] },
    });
    for (const gameId of [UNKNOWN_GAME, gameB.id]) {
      expect((await call("deleteGameAnnouncement", `/announcements/${gameId}`, { method: "DELETE", key: keyA })).status).toBe(404);
    }
  });

  it("serves repeated reads from the cache: one RPC per company and kind", async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ["/games", "/tags", "/fields", "/announcements"]) expect((await t.request(path, { key: keyA })).status).toBe(200);
    }
    for (const method of ["listGames", "listTags", "listFields", "listAnnouncements"]) expect(t.content.count(method)).toBe(1);
    await t.request("/games", { key: keyB });
    expect(t.content.count("listGames")).toBe(2);
  });

  it("shares one RPC between concurrent misses of one company", async () => {
    t.content.delayMs = 50;
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => t.request("/games", { key: keyA })));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(t.content.count("listGames")).toBe(1);
    } finally {
      t.content.delayMs = 0;
    }
  });

  it("never shows one company's cached data to another", async () => {
    const a = await t.request("/games", { key: keyA });
    const b = await t.request("/games", { key: keyB });
    expect((a.body as { games: { id: string }[] }).games.map((g) => g.id)).toEqual([gameA.id]);
    expect((b.body as { games: { id: string }[] }).games.map((g) => g.id)).toEqual([gameB.id]);
  });

  it("a content event evicts that company's caches only", async () => {
    for (const key of [keyA, keyB]) for (const path of ["/games", "/tags", "/fields", "/announcements"]) await t.request(path, { key });
    const renamed = t.content.addGame(A, "Gamma");
    event(A, "content.game.created", { gameId: renamed.id });
    const a = await t.request("/games", { key: keyA });
    expect((a.body as { games: { name: string }[] }).games.map((g) => g.name)).toEqual(["Alpha", "Gamma"]);
    for (const path of ["/games", "/tags", "/fields", "/announcements"]) await t.request(path, { key: keyB });
    for (const method of ["listGames", "listTags", "listFields", "listAnnouncements"]) expect(t.content.count(method)).toBe(method === "listGames" ? 3 : 2);
    t.content.games.splice(t.content.games.indexOf(renamed as never), 1);
    event(A);
  });

  it("ignores messages that are not envelopes", async () => {
    await t.request("/games", { key: keyA });
    nats.publish("content.game.updated", "not json");
    nats.publish("content.game.updated", { hello: "world" });
    await t.request("/games", { key: keyA });
    expect(t.content.count("listGames")).toBe(1);
  });

  it("clears every cache when NATS reconnects (events may have been missed)", async () => {
    await t.request("/games", { key: keyA });
    const authCalls = t.content.count("authenticateApiKey");
    nats.status("reconnect");
    await new Promise((resolve) => setTimeout(resolve, 10));
    await t.request("/games", { key: keyA });
    expect(t.content.count("listGames")).toBe(2);
    expect(t.content.count("authenticateApiKey")).toBe(authCalls + 1);
  });

  it("reads its own writes: a PUT or DELETE evicts the company's announcements before answering", async () => {
    expect((await t.request("/announcements", { key: keyA })).body).toEqual({ announcements: [] });
    await t.request("/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "New" }, longContent: {}, gameId: null } });
    expect((await t.request("/announcements", { key: keyA })).body).toEqual({ announcements: [{ shortContent: { en: "New" }, longContent: {}, gameId: null }] });
    await t.request("/announcements", { method: "DELETE", key: keyA });
    expect((await t.request("/announcements", { key: keyA })).body).toEqual({ announcements: [] });
    await t.request("/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "Game" }, longContent: null, gameId: gameA.id } });
    expect((await t.request("/announcements", { key: keyA })).body).toMatchObject({ announcements: [{ gameId: gameA.id }] });
    await t.request(`/announcements/${gameA.id}`, { method: "DELETE", key: keyA });
    expect((await t.request("/announcements", { key: keyA })).body).toEqual({ announcements: [] });
  });

  it("does not let a list that was loading during a write fill the cache with stale data", async () => {
    t.content.delayMs = 60;
    try {
      const slowRead = t.request("/announcements", { key: keyA });
      await new Promise((resolve) => setTimeout(resolve, 10));
      t.content.delayMs = 0;
      await t.request("/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "Fresh" }, longContent: null, gameId: null } });
      expect((await slowRead).body).toEqual({ announcements: [] });
      expect((await t.request("/announcements", { key: keyA })).body).toMatchObject({ announcements: [{ shortContent: { en: "Fresh" } }] });
    } finally {
      t.content.delayMs = 0;
    }
  });
});
