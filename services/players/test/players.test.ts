// The players service through its Connect API, against real Postgres and NATS.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { failureOf, startPlayers, type PlayersTestContext } from "./context.ts";
import { contractTypes, schemaProblems } from "./event-schemas.ts";

let ctx: PlayersTestContext;
const companyId = randomUUID();
const otherCompanyId = randomUUID();

beforeAll(async () => {
  ctx = await startPlayers();
});

afterAll(async () => {
  await ctx?.stop();
});

/** Each test works in a game of its own, so tests never see each other's players. */
const newGame = () => randomUUID();

describe("ResolvePlayer", () => {
  it("creates an identified player, then finds the same one by its external id", async () => {
    const gameId = newGame();
    const first = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p-1", name: "Ann", email: "Ann@Example.com" });
    expect(first.created).toBe(true);
    expect(first.player).toMatchObject({ companyId, gameId, externalId: "p-1", name: "Ann", email: "Ann@Example.com", tier: 1, blocked: false });

    const again = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p-1" });
    expect(again.created).toBe(false);
    expect(again.player?.id).toBe(first.player?.id);
    expect(again.player?.name).toBe("Ann");
  });

  it("gives an identified player tier 1 by default and keeps an explicit tier", async () => {
    const gameId = newGame();
    expect((await ctx.client.resolvePlayer({ companyId, gameId, externalId: "default" })).player?.tier).toBe(1);
    expect((await ctx.client.resolvePlayer({ companyId, gameId, externalId: "gold", tier: 3 })).player?.tier).toBe(3);
    // A later contact without a tier does not reset the stored one.
    expect((await ctx.client.resolvePlayer({ companyId, gameId, externalId: "gold" })).player?.tier).toBe(3);
  });

  it("leaves an email player's tier unknown unless given", async () => {
    const gameId = newGame();
    expect((await ctx.client.resolvePlayer({ companyId, gameId, email: "anon@example.com" })).player?.tier).toBeUndefined();
    expect((await ctx.client.resolvePlayer({ companyId, gameId, email: "vip@example.com", tier: 2 })).player?.tier).toBe(2);
  });

  it("finds an email player case-insensitively and keeps the address as first given", async () => {
    const gameId = newGame();
    const first = await ctx.client.resolvePlayer({ companyId, gameId, email: "Mixed.Case@Example.com" });
    const again = await ctx.client.resolvePlayer({ companyId, gameId, email: "  mixed.case@EXAMPLE.com " });
    expect(again.created).toBe(false);
    expect(again.player?.id).toBe(first.player?.id);
    expect(again.player?.email).toBe("Mixed.Case@Example.com");
    expect(again.player?.externalId).toBeUndefined();
  });

  it("keeps identified and email players apart, and the same external id apart per game", async () => {
    const gameId = newGame();
    const byEmail = await ctx.client.resolvePlayer({ companyId, gameId, email: "same@example.com" });
    const byId = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "x", email: "same@example.com" });
    expect(byId.created).toBe(true);
    expect(byId.player?.id).not.toBe(byEmail.player?.id);
    const otherGame = await ctx.client.resolvePlayer({ companyId, gameId: newGame(), externalId: "x" });
    expect(otherGame.created).toBe(true);
  });

  it("updates name, email and tier of an identified player when given", async () => {
    const gameId = newGame();
    const first = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p", name: "Old" });
    const updated = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p", name: "New", email: "new@example.com", tier: 2 });
    expect(updated.player).toMatchObject({ id: first.player?.id, name: "New", email: "new@example.com", tier: 2 });
    expect((await ctx.client.getPlayer({ companyId, playerId: first.player!.id })).player).toMatchObject({ name: "New", tier: 2 });
  });

  it("rejects an invalid tier, a missing identity and bad ids", async () => {
    const gameId = newGame();
    expect(await failureOf(ctx.client.resolvePlayer({ companyId, gameId, externalId: "p", tier: 4 }))).toMatchObject({
      code: "invalid_argument",
      issues: [{ path: "/tier", message: "must be 1, 2 or 3" }],
    });
    expect((await failureOf(ctx.client.resolvePlayer({ companyId, gameId, name: "nobody" }))).code).toBe("invalid_argument");
    expect((await failureOf(ctx.client.resolvePlayer({ companyId, gameId: "not-a-uuid", externalId: "p" }))).issues).toEqual([
      { path: "/gameId", message: "must be a UUID" },
    ]);
  });

  it("creates one player when 50 first contacts of the same player arrive at once", async () => {
    const gameId = newGame();
    const byId = await Promise.all(
      Array.from({ length: 50 }, (_, i) => ctx.client.resolvePlayer({ companyId, gameId, externalId: "rush", name: `Name ${i % 3}` })),
    );
    expect(new Set(byId.map((r) => r.player?.id)).size).toBe(1);
    expect(byId.filter((r) => r.created)).toHaveLength(1);

    const byEmail = await Promise.all(
      Array.from({ length: 50 }, (_, i) => ctx.client.resolvePlayer({ companyId, gameId, email: i % 2 ? "Rush@Example.com" : "rush@example.com" })),
    );
    expect(new Set(byEmail.map((r) => r.player?.id)).size).toBe(1);
    expect(byEmail.filter((r) => r.created)).toHaveLength(1);

    const rows = await sql<{ n: number }>`select count(*)::int as n from players.players where game_id = ${gameId}`.execute(ctx.db);
    expect(rows.rows[0]?.n).toBe(2);
  });

  it("answers NOT_FOUND for a game of another company", async () => {
    const gameId = newGame();
    await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p", name: "Mine" });
    expect((await failureOf(ctx.client.resolvePlayer({ companyId: otherCompanyId, gameId, externalId: "p", name: "Theirs" }))).code).toBe("not_found");
    const mine = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p" });
    expect(mine.player?.name).toBe("Mine");
  });
});

describe("FindPlayer", () => {
  const playerRows = async (gameId: string) =>
    (await sql<{ id: string; name: string | null; tier: number | null }>`select id, name, tier from players.players where game_id = ${gameId} order by id`.execute(ctx.db)).rows;

  it("answers no player for one ResolvePlayer would create, and creates nothing", async () => {
    const gameId = newGame();
    expect((await ctx.client.findPlayer({ companyId, gameId, externalId: "new", name: "Ann", tier: 2 })).player).toBeUndefined();
    expect((await ctx.client.findPlayer({ companyId, gameId, email: "new@example.com" })).player).toBeUndefined();
    expect(await playerRows(gameId)).toEqual([]);
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(events).toEqual([]);
  });

  it("returns the stored player as it is, without taking the name, email or tier of the request", async () => {
    const gameId = newGame();
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p", name: "Ann", email: "ann@example.com" });
    const byEmail = await ctx.client.resolvePlayer({ companyId, gameId, email: "Mail@Example.com" });
    await ctx.client.blockPlayer({ companyId, gameId, externalId: "p" });
    const before = await playerRows(gameId);

    const found = await ctx.client.findPlayer({ companyId, gameId, externalId: "p", name: "Someone else", email: "else@example.com", tier: 3 });
    expect(found.player).toMatchObject({ id: player!.id, name: "Ann", email: "ann@example.com", tier: 1, blocked: true });
    expect((await ctx.client.findPlayer({ companyId, gameId, email: " mail@EXAMPLE.com" })).player?.id).toBe(byEmail.player!.id);
    expect(await playerRows(gameId)).toEqual(before);
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(events.map((e) => e.type)).toEqual(["players.player.created", "players.player.created", "players.player.blocked"]);
  });

  it("refuses what ResolvePlayer refuses, with the same issues", async () => {
    const gameId = newGame();
    for (const request of [
      { companyId, gameId, externalId: "p", tier: 4 },
      { companyId, gameId, externalId: "p", name: "x".repeat(1000) },
      { companyId, gameId, name: "nobody" },
      { companyId, gameId: "not-a-uuid", externalId: "p" },
    ]) {
      const refused = await failureOf(ctx.client.findPlayer(request));
      expect(refused.code).toBe("invalid_argument");
      expect(refused).toEqual(await failureOf(ctx.client.resolvePlayer(request)));
    }
    expect(await playerRows(gameId)).toEqual([]);
  });

  it("does not find another company's player", async () => {
    const gameId = newGame();
    await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p" });
    expect((await ctx.client.findPlayer({ companyId: otherCompanyId, gameId, externalId: "p" })).player).toBeUndefined();
  });
});

describe("GetPlayer and SetPlayerInfo", () => {
  it("returns a player of the company only", async () => {
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId: newGame(), externalId: "p" });
    expect((await ctx.client.getPlayer({ companyId, playerId: player!.id })).player?.id).toBe(player!.id);
    expect((await failureOf(ctx.client.getPlayer({ companyId: otherCompanyId, playerId: player!.id }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.getPlayer({ companyId, playerId: randomUUID() }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.getPlayer({ companyId, playerId: "nope" }))).code).toBe("not_found");
  });

  it("changes the given name and tier only", async () => {
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId: newGame(), externalId: "p", name: "Ann", tier: 2 });
    const renamed = await ctx.client.setPlayerInfo({ companyId, playerId: player!.id, name: "Anna" });
    expect(renamed.player).toMatchObject({ name: "Anna", tier: 2 });
    const promoted = await ctx.client.setPlayerInfo({ companyId, playerId: player!.id, tier: 3 });
    expect(promoted.player).toMatchObject({ name: "Anna", tier: 3 });
    expect((await ctx.client.getPlayer({ companyId, playerId: player!.id })).player).toMatchObject({ name: "Anna", tier: 3 });
  });

  it("rejects an invalid tier and another company's player", async () => {
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId: newGame(), externalId: "p" });
    expect((await failureOf(ctx.client.setPlayerInfo({ companyId, playerId: player!.id, tier: 0 }))).code).toBe("invalid_argument");
    expect((await failureOf(ctx.client.setPlayerInfo({ companyId: otherCompanyId, playerId: player!.id, name: "X" }))).code).toBe("not_found");
    expect((await ctx.client.getPlayer({ companyId, playerId: player!.id })).player?.name).toBeUndefined();
  });
});

describe("BlockPlayer and UnblockPlayer", () => {
  it("blocks a player before its first contact, and ResolvePlayer then reports it blocked", async () => {
    const gameId = newGame();
    const blocked = await ctx.client.blockPlayer({ companyId, gameId, externalId: "troll" });
    expect(blocked.player).toMatchObject({ externalId: "troll", blocked: true, tier: 1 });
    const resolved = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "troll", name: "Troll", tier: 2 });
    expect(resolved.created).toBe(false);
    expect(resolved.player).toMatchObject({ id: blocked.player?.id, blocked: true, name: "Troll", tier: 2 });
  });

  it("blocks by email case-insensitively", async () => {
    const gameId = newGame();
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId, email: "Spam@Example.com" });
    const blocked = await ctx.client.blockPlayer({ companyId, gameId, email: "spam@example.COM" });
    expect(blocked.player).toMatchObject({ id: player?.id, blocked: true, email: "Spam@Example.com" });
    expect((await ctx.client.resolvePlayer({ companyId, gameId, email: "SPAM@example.com" })).player?.blocked).toBe(true);
  });

  it("unblocks, and a second block or unblock changes nothing", async () => {
    const gameId = newGame();
    await ctx.client.blockPlayer({ companyId, gameId, externalId: "p" });
    expect((await ctx.client.blockPlayer({ companyId, gameId, externalId: "p" })).player?.blocked).toBe(true);
    expect((await ctx.client.unblockPlayer({ companyId, gameId, externalId: "p" })).player?.blocked).toBe(false);
    expect((await ctx.client.unblockPlayer({ companyId, gameId, externalId: "p" })).player?.blocked).toBe(false);
    expect((await ctx.client.resolvePlayer({ companyId, gameId, externalId: "p" })).player?.blocked).toBe(false);
  });

  it("answers NOT_FOUND for unblocking an unknown player or another company's", async () => {
    const gameId = newGame();
    expect((await failureOf(ctx.client.unblockPlayer({ companyId, gameId, externalId: "ghost" }))).code).toBe("not_found");
    await ctx.client.blockPlayer({ companyId, gameId, email: "x@example.com" });
    expect((await failureOf(ctx.client.unblockPlayer({ companyId: otherCompanyId, gameId, email: "x@example.com" }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.blockPlayer({ companyId: otherCompanyId, gameId, email: "x@example.com" }))).code).toBe("not_found");
  });

  it("needs exactly one of external id and email", async () => {
    const gameId = newGame();
    expect((await failureOf(ctx.client.blockPlayer({ companyId, gameId }))).code).toBe("invalid_argument");
    expect((await failureOf(ctx.client.blockPlayer({ companyId, gameId, externalId: "p", email: "p@example.com" }))).code).toBe("invalid_argument");
    expect((await failureOf(ctx.client.unblockPlayer({ companyId, gameId }))).code).toBe("invalid_argument");
  });

  it("never lets ResolvePlayer clear a block, also under concurrent contacts", async () => {
    const gameId = newGame();
    await ctx.client.blockPlayer({ companyId, gameId, externalId: "p" });
    const results = await Promise.all(Array.from({ length: 10 }, () => ctx.client.resolvePlayer({ companyId, gameId, externalId: "p", name: "P" })));
    expect(results.every((r) => r.player?.blocked)).toBe(true);
  });
});

describe("events", () => {
  it("has every event type in the contract", () => {
    expect([...contractTypes].sort()).toEqual([
      "players.audit.recorded",
      "players.deletion.cancelled",
      "players.deletion.scheduled",
      "players.deletion.started",
      "players.player.blocked",
      "players.player.created",
      "players.player.deleted",
      "players.player.unblocked",
      "players.player.updated",
      "players.session.created",
      "players.session.ended",
      "players.session.verified",
    ]);
  });

  it("publishes each change once, on the players stream, in the domain event envelope", async () => {
    const gameId = newGame();
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "ev", name: "Eve", email: "Eve@Example.com" });
    await ctx.client.resolvePlayer({ companyId, gameId, externalId: "ev" }); // no change: no event
    await ctx.client.resolvePlayer({ companyId, gameId, externalId: "ev", name: "Eva" });
    await ctx.client.setPlayerInfo({ companyId, playerId: player!.id, tier: 3 });
    await ctx.client.setPlayerInfo({ companyId, playerId: player!.id, tier: 3 }); // no change
    await ctx.client.blockPlayer({ companyId, gameId, externalId: "ev" });
    await ctx.client.blockPlayer({ companyId, gameId, externalId: "ev" }); // already blocked
    await ctx.client.unblockPlayer({ companyId, gameId, externalId: "ev" });
    const { player: emailPlayer } = await ctx.client.blockPlayer({ companyId, gameId, email: "Blocked@Example.com" });

    await ctx.publishedEvents(); // a second relay pass re-publishes nothing
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.map((e) => e.type)).toEqual([
      "players.player.created",
      "players.player.updated",
      "players.player.updated",
      "players.player.blocked",
      "players.player.unblocked",
      "players.player.created",
      "players.player.blocked",
    ]);
    for (const event of events) {
      expect(schemaProblems(event)).toEqual([]);
      expect(event).toMatchObject({ companyId, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(Date.parse(event.occurredAt)).not.toBeNaN();
    }
    expect(events[0]?.data).toEqual({ playerId: player!.id, gameId, externalId: "ev", name: "Eve", email: "Eve@Example.com", tier: 1, blocked: false });
    expect(events[1]?.data).toEqual({ playerId: player!.id, gameId, externalId: "ev", name: "Eva", email: "Eve@Example.com", tier: 1 });
    expect(events[2]?.data).toMatchObject({ tier: 3 });
    expect(events[3]?.data).toEqual({ playerId: player!.id, gameId, externalId: "ev" });
    expect(events[4]?.data).toEqual({ playerId: player!.id, gameId, externalId: "ev" });
    expect(events[5]?.data).toEqual({
      playerId: emailPlayer!.id, gameId, externalId: null, name: null, email: "Blocked@Example.com", tier: null, blocked: true,
    });
    expect(events[6]?.data).toEqual({ playerId: emailPlayer!.id, gameId, externalId: null });

    const pending = await sql<{ n: number }>`select count(*)::int as n from players.outbox`.execute(ctx.db);
    expect(pending.rows[0]?.n).toBe(0);
  });

  it("publishes a player created by 50 concurrent contacts once", async () => {
    const gameId = newGame();
    await Promise.all(Array.from({ length: 50 }, () => ctx.client.resolvePlayer({ companyId, gameId, externalId: "crowd" })));
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(events.map((e) => e.type)).toEqual(["players.player.created"]);
  });
});
