// The settings' Players page, service side: blocked players newest first a page at a time,
// scheduled deletions with their players, and the audit entries (players.audit.recorded) written
// with a user's change in its transaction, never for an operator's or a no-op, never with an email.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockPlayers } from "../src/admin/admin.service.ts";
import { failureOf, startPlayers, type PlayersTestContext } from "./context.ts";

let ctx: PlayersTestContext;
const companyId = randomUUID();
const actorUserId = randomUUID();
const origin = { actorUserId, clientAddress: "203.0.113.7" };

beforeAll(async () => {
  ctx = await startPlayers();
});
afterAll(async () => {
  await ctx?.stop();
});

const auditEvents = async (gameId: string) =>
  (await ctx.publishedEvents()).filter((event) => event.type === "players.audit.recorded" && (event.data as { detail: { gameId?: string } }).detail.gameId === gameId);

describe("players in the settings", () => {
  it("lists a game's blocked players, the most recently blocked first, a page at a time", async () => {
    const gameId = randomUUID();
    const ids: string[] = [];
    for (const externalId of ["a", "b", "c"]) ids.push((await ctx.client.blockPlayer({ companyId, gameId, externalId, ...origin })).player!.id);
    await ctx.client.resolvePlayer({ companyId, gameId, externalId: "free" });
    const first = await ctx.client.listBlockedPlayers({ companyId, gameId, pageSize: 2 });
    expect(first.players.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.players[0]!.blockedAt).toBeDefined();
    const second = await ctx.client.listBlockedPlayers({ companyId, gameId, pageSize: 2, cursor: first.nextCursor });
    expect(second.players.map((p) => p.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBe("");
    // Another company's list of the same game id is empty.
    expect((await ctx.client.listBlockedPlayers({ companyId: randomUUID(), gameId })).players).toEqual([]);
    await ctx.client.unblockPlayer({ companyId, gameId, externalId: "b", ...origin });
    expect((await ctx.client.listBlockedPlayers({ companyId, gameId })).players.map((p) => [p.id, p.blocked])).toEqual([[ids[2], true], [ids[0], true]]);
    expect((await ctx.client.getPlayer({ companyId, playerId: ids[1]! })).player?.blockedAt).toBeUndefined();
  });

  it("gives a block written without its time (the previous release, during a rollout) the time of the write", async () => {
    const gameId = randomUUID();
    const player = (await ctx.client.resolvePlayer({ companyId, gameId, externalId: "old-release" })).player!;
    await ctx.db.updateTable("players").set({ blocked: true }).where("id", "=", player.id).execute();
    const [listed] = (await ctx.client.listBlockedPlayers({ companyId, gameId })).players;
    expect(listed).toMatchObject({ id: player.id, blocked: true });
    expect(listed!.blockedAt).toBeDefined();
    await ctx.db.updateTable("players").set({ blocked: false }).where("id", "=", player.id).execute();
    expect((await ctx.db.selectFrom("players").select("blocked_at").where("id", "=", player.id).executeTakeFirstOrThrow()).blocked_at).toBeNull();
  });

  it("records a user's block and unblock once each, without the email; an operator's and a no-op record nothing", async () => {
    const gameId = randomUUID();
    const blocked = (await ctx.client.blockPlayer({ companyId, gameId, email: "Rude@Example.com", ...origin })).player!;
    await ctx.client.blockPlayer({ companyId, gameId, email: "rude@example.com", ...origin });
    await ctx.client.unblockPlayer({ companyId, gameId, email: "rude@example.com", ...origin });
    await ctx.client.unblockPlayer({ companyId, gameId, email: "rude@example.com", ...origin });
    await blockPlayers(ctx.db, companyId, [{ gameId, externalId: "by-operator" }]);
    const events = await auditEvents(gameId);
    expect(events.map((event) => (event.data as { action: string }).action)).toEqual(["player.blocked", "player.unblocked"]);
    expect(events[0]).toMatchObject({
      companyId,
      data: {
        actor: { type: "user", id: actorUserId }, target: { type: "player", id: blocked.id }, before: null, after: { blocked: true },
        detail: { gameId, playerId: null, newPlayer: true }, clientAddress: "203.0.113.7",
      },
    });
    expect(JSON.stringify(events).toLowerCase()).not.toContain("example.com");
  });

  it("refuses an acting user id that is not one", async () => {
    const failure = await failureOf(ctx.client.blockPlayer({ companyId, gameId: randomUUID(), externalId: "x", actorUserId: "someone" }));
    expect(failure).toMatchObject({ code: "invalid_argument", issues: [{ path: "/actorUserId" }] });
  });

  it("lists the company's scheduled deletions with their players, the soonest due first, and records a user's cancellation", async () => {
    const company = randomUUID();
    const [galaxy, farm] = [randomUUID(), randomUUID()];
    const lee = (await ctx.client.resolvePlayer({ companyId: company, gameId: farm, externalId: "lee", name: "Lee" })).player!;
    const ray = (await ctx.client.resolvePlayer({ companyId: company, gameId: galaxy, externalId: "ray" })).player!;
    await ctx.client.schedulePlayerDeletion({ companyId: company, playerId: lee.id, apiKeyId: "key-1" });
    await ctx.client.schedulePlayerDeletion({ companyId: company, playerId: ray.id });
    // Ray's is due a minute after Lee's, whatever the clock did between the two calls.
    const leeDue = (await ctx.db.selectFrom("deletion_schedules").select("due_at").where("player_id", "=", lee.id).executeTakeFirstOrThrow()).due_at;
    await ctx.db.updateTable("deletion_schedules").set({ due_at: new Date(leeDue.getTime() + 60_000) }).where("player_id", "=", ray.id).execute();
    const all = await ctx.client.listScheduledDeletions({ companyId: company });
    expect(all.deletions.map((d) => [d.player?.id, d.player?.name, d.deletion?.requestedByType])).toEqual([[lee.id, "Lee", "api_key"], [ray.id, undefined, "api_key"]]);
    expect(all.deletions[0]!.deletion?.requestedById).toBe("key-1");
    expect((await ctx.client.listScheduledDeletions({ companyId: company, gameId: galaxy })).deletions.map((d) => d.player?.id)).toEqual([ray.id]);
    const page = await ctx.client.listScheduledDeletions({ companyId: company, pageSize: 1 });
    expect((await ctx.client.listScheduledDeletions({ companyId: company, pageSize: 1, cursor: page.nextCursor })).deletions.map((d) => d.player?.id)).toEqual([ray.id]);

    await ctx.client.cancelPlayerDeletion({ companyId: company, playerId: ray.id, actingUserId: actorUserId, clientAddress: "203.0.113.8" });
    expect((await ctx.client.listScheduledDeletions({ companyId: company })).deletions.map((d) => d.player?.id)).toEqual([lee.id]);
    const [entry] = await auditEvents(galaxy);
    expect(entry).toMatchObject({
      companyId: company,
      data: { action: "player.deletion_cancelled", actor: { type: "user", id: actorUserId }, target: { type: "player", id: ray.id }, after: null, detail: { gameId: galaxy, playerId: "ray" }, clientAddress: "203.0.113.8" },
    });
    expect((entry!.data as { before: { dueAt: string } }).before.dueAt).toBe(new Date(leeDue.getTime() + 60_000).toISOString());
  });
});
