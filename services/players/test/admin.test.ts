// players.v1.PlayersAdminService, the admin tool's way into the players schema: behind the
// admin token, each call one transaction, errors in the operators' words.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlayersAdminService } from "@support/proto";
import { adminTokenHeader, createServiceClient } from "@support/rpc";
import { failureOf, startPlayers, type PlayersTestContext } from "./context.ts";

const token = "players-admin-test-token";
let ctx: PlayersTestContext;
let admin: ReturnType<typeof createServiceClient<typeof PlayersAdminService>>;
const companyId = randomUUID();

beforeAll(async () => {
  ctx = await startPlayers({ config: { ADMIN_TOKEN: token } });
  admin = createServiceClient(PlayersAdminService, ctx.baseUrl, { interceptors: [adminTokenHeader(token)] });
});

afterAll(async () => {
  await ctx?.stop();
});

describe("players admin service", () => {
  it("blocks every target in one call, creating unknown players blocked, and again changes nothing", async () => {
    const gameId = randomUUID();
    const targets = [{ gameId, externalId: "cheater" }, { gameId, email: "Rude@Example.com" }];
    const first = await admin.blockPlayers({ companyId, targets });
    expect(first.players.map((p) => [p.player?.externalId, p.player?.email, p.player?.blocked, p.created])).toEqual([
      ["cheater", undefined, true, true],
      [undefined, "Rude@Example.com", true, true],
    ]);
    const again = await admin.blockPlayers({ companyId, targets });
    expect(again.players.map((p) => [p.player?.id, p.created])).toEqual(first.players.map((p) => [p.player?.id, false]));
    expect((await ctx.client.resolvePlayer({ companyId, gameId, externalId: "cheater" })).player?.blocked).toBe(true);
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(events.map((e) => e.type)).toEqual(["players.player.created", "players.player.blocked", "players.player.created", "players.player.blocked"]);
  });

  it("blocks all or none, naming the bad target in the operators' words", async () => {
    const gameId = randomUUID();
    const failure = await failureOf(admin.blockPlayers({ companyId, targets: [{ gameId, externalId: "fine" }, { gameId, externalId: " " }] }));
    expect(failure).toMatchObject({ code: "invalid_argument", issues: [{ path: "/targets/1/playerId", message: "must not be blank" }] });
    const rows = await ctx.db.selectFrom("players").select("id").where("game_id", "=", gameId).execute();
    expect(rows).toEqual([]);
  });

  it("unblocks, and an unknown player is not_found", async () => {
    const gameId = randomUUID();
    await admin.blockPlayers({ companyId, targets: [{ gameId, externalId: "p1" }] });
    const unblocked = await admin.unblockPlayers({ companyId, targets: [{ gameId, externalId: "p1" }] });
    expect(unblocked.players[0]).toMatchObject({ player: { externalId: "p1", blocked: false }, created: false });
    expect((await failureOf(admin.unblockPlayers({ companyId, targets: [{ gameId, externalId: "ghost" }] }))).code).toBe("not_found");
  });

  it("refuses a call without the token", async () => {
    const anonymous = createServiceClient(PlayersAdminService, ctx.baseUrl);
    expect((await failureOf(anonymous.listDeletionSchedules({}))).code).toBe("unauthenticated");
  });
});

describe("players admin service without ADMIN_TOKEN", () => {
  let closed: PlayersTestContext;
  beforeAll(async () => {
    closed = await startPlayers();
  });
  afterAll(async () => {
    await closed?.stop();
  });

  it("refuses every call with permission_denied", async () => {
    const client = createServiceClient(PlayersAdminService, closed.baseUrl, { interceptors: [adminTokenHeader(token)] });
    expect((await failureOf(client.blockPlayers({ companyId, targets: [{ gameId: randomUUID(), externalId: "x" }] }))).code).toBe("permission_denied");
    expect((await failureOf(client.listDeletionSchedules({}))).code).toBe("permission_denied");
  });
});
