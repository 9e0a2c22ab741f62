// The admin command's players functions: on a database URL (fresh database included) and
// inside another schema's transaction, with their events in players.outbox.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, migrateToLatest, sql, type Kysely } from "@support/db";
import { isAppError } from "@support/errors";
import { dropDatabase, withDatabase } from "@support/testkit";
import { blockPlayer, blockPlayersWithExecutor, migratePlayersSchema, unblockPlayer } from "../src/index.ts";
import { startPlayers, type PlayersTestContext } from "./context.ts";

let ctx: PlayersTestContext;
const companyId = randomUUID();

beforeAll(async () => {
  ctx = await startPlayers();
});

afterAll(async () => {
  await ctx?.stop();
});

async function errorOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message, issues: error.details?.issues };
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("admin: block and unblock by database URL", () => {
  it("blocks an unknown player, which the service then reports blocked", async () => {
    const gameId = randomUUID();
    const result = await blockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, externalId: "cheater" });
    expect(result).toMatchObject({ companyId, gameId, externalId: "cheater", email: null, blocked: true, created: true, tier: 1 });
    const resolved = await ctx.client.resolvePlayer({ companyId, gameId, externalId: "cheater" });
    expect(resolved.player).toMatchObject({ id: result.playerId, blocked: true });

    const again = await blockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, externalId: "cheater" });
    expect(again).toMatchObject({ playerId: result.playerId, blocked: true, created: false });
  });

  it("unblocks by email, and an unknown player is not_found", async () => {
    const gameId = randomUUID();
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId, email: "Rude@Example.com" });
    await blockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, email: "rude@example.com" });
    const result = await unblockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, email: "RUDE@example.com" });
    expect(result).toMatchObject({ playerId: player?.id, blocked: false, email: "Rude@Example.com" });
    expect((await errorOf(unblockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, externalId: "ghost" }))).code).toBe("not_found");
  });

  it("speaks of playerId, as operators do, when the input is wrong", async () => {
    const error = await errorOf(blockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId: randomUUID() }));
    expect(error).toMatchObject({ code: "invalid_argument", issues: [{ path: "", message: "give exactly one of playerId and email" }] });
    const blank = await errorOf(blockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId: randomUUID(), externalId: " " }));
    expect(blank.issues).toEqual([{ path: "/playerId", message: "must not be blank" }]);
  });

  it("publishes its changes through the players outbox", async () => {
    const gameId = randomUUID();
    await blockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, externalId: "evt" });
    await unblockPlayer({ databaseUrl: ctx.infra.databaseUrl, companyId, gameId, externalId: "evt" });
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(events.map((e) => e.type)).toEqual(["players.player.created", "players.player.blocked", "players.player.unblocked"]);
  });

  it("creates and migrates a database that does not exist yet", async () => {
    const adminUrl = adminUrlOf(ctx.infra.databaseUrl);
    const name = `${ctx.infra.databaseName}_fresh`;
    try {
      const result = await blockPlayer({ databaseUrl: withDatabase(adminUrl, name), companyId, gameId: randomUUID(), email: "new@example.com" });
      expect(result).toMatchObject({ blocked: true, created: true, tier: null });
    } finally {
      await dropDatabase(adminUrl, name);
    }
  });
});

describe("admin: blocking inside another schema's transaction (apply)", () => {
  let content: Kysely<{ things: { id: string } }>;

  beforeAll(async () => {
    await migratePlayersSchema(ctx.infra.databaseUrl);
    // A connection whose search_path is another service's schema, with an outbox of its own,
    // as the content admin command's connection is.
    content = createDb({ url: ctx.infra.databaseUrl, schema: "content_like", maxConnections: 2 });
    await migrateToLatest(content, "content_like", {
      "0001": {
        up: async (db) => {
          await db.schema.createTable("things").addColumn("id", "text").execute();
          await db.schema.createTable("outbox").addColumn("id", "uuid").execute();
        },
      },
    });
  });

  afterAll(async () => {
    await content?.destroy();
  });

  it("writes players and their events to the players schema in the caller's transaction", async () => {
    const gameId = randomUUID();
    const results = await content.transaction().execute(async (trx) => {
      await trx.insertInto("things").values({ id: "company" }).execute();
      return blockPlayersWithExecutor(trx, companyId, [
        { gameId, externalId: "a" },
        { gameId, email: "B@Example.com" },
      ]);
    });
    expect(results.map((r) => [r.externalId, r.email, r.blocked, r.created])).toEqual([
      ["a", null, true, true],
      [null, "B@Example.com", true, true],
    ]);
    expect((await ctx.client.resolvePlayer({ companyId, gameId, email: "b@example.com" })).player?.blocked).toBe(true);
    const foreignOutbox = await sql<{ n: number }>`select count(*)::int as n from content_like.outbox`.execute(content);
    expect(foreignOutbox.rows[0]?.n).toBe(0);
    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { gameId?: string }).gameId === gameId);
    expect(events.map((e) => e.type)).toEqual(["players.player.created", "players.player.blocked", "players.player.created", "players.player.blocked"]);
  });

  it("rolls the players writes back with the caller's transaction", async () => {
    const gameId = randomUUID();
    const failure = content.transaction().execute(async (trx) => {
      await blockPlayersWithExecutor(trx, companyId, [{ gameId, externalId: "kept?" }]);
      await blockPlayersWithExecutor(trx, companyId, [{ gameId, externalId: "x", email: "x@example.com" }]);
    });
    expect((await errorOf(failure)).code).toBe("invalid_argument");
    const rows = await sql<{ n: number }>`select count(*)::int as n from players.players where game_id = ${gameId}`.execute(content);
    expect(rows.rows[0]?.n).toBe(0);
    const pending = await sql<{ n: number }>`select count(*)::int as n from players.outbox where envelope->'data'->>'gameId' = ${gameId}`.execute(content);
    expect(pending.rows[0]?.n).toBe(0);
  });

  it("refuses to run outside a transaction", async () => {
    await expect(blockPlayersWithExecutor(content, companyId, [])).rejects.toThrow(/transaction/);
  });
});

function adminUrlOf(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = "/postgres";
  return url.toString();
}
