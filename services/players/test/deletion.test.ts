// Player deletion (scheduled and immediate) in the players service against real Postgres and NATS, with
// tickets, media and content as in-memory Connect services that count their calls (the
// gateway's test/player-deletion.test.ts runs the same flows against the real services). It
// checks what only the players service can show: events against the event contract, the
// erasure running once with two replicas, resumption without repeating a done step, and the
// player's own rows (sessions) going with the record.
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { connectBus } from "@support/bus";
import { createDb, sql } from "@support/db";
import { createLogger } from "@support/logging";
import { domainTransport } from "@support/rpc";
import { ContentService, MediaService, TicketsService } from "@support/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type PlayersDatabase, type PlayersServer } from "../src/index.ts";
import { failureOf, startPlayers, type PlayersTestContext } from "./context.ts";
import { schemaProblems } from "./event-schemas.ts";

const DELAY_SECONDS = 2;
const allowedCompany = randomUUID();
const deniedCompany = randomUUID();

/** Calls per player id, and switchable failures. */
const calls = { tickets: new Map<string, number>(), media: new Map<string, number>() };
const failing = { media: false };
const count = (map: Map<string, number>, id: string) => map.set(id, (map.get(id) ?? 0) + 1);

const tickets = createClient(
  TicketsService,
  // Through the same client-side mapping as the real clients: calls answer AppErrors.
  domainTransport(createRouterTransport(({ service }) =>
    service(TicketsService, {
      erasePlayerTickets: async ({ servicePlayerId }) => {
        count(calls.tickets, servicePlayerId);
        return { deletedTickets: 2, deletedEvents: 7, deletedBreadcrumbs: 3, deletedTags: 1, deletedFieldValues: 2 };
      },
    }),
  ), 5000),
);
const media = createClient(
  MediaService,
  // Through the same client-side mapping as the real clients: calls answer AppErrors.
  domainTransport(createRouterTransport(({ service }) =>
    service(MediaService, {
      deletePlayerAttachments: async ({ servicePlayerId }) => {
        count(calls.media, servicePlayerId);
        if (failing.media) throw new ConnectError("connect ECONNREFUSED 10.0.0.9:50053", Code.Unavailable);
        return { deletedCount: 4 };
      },
    }),
  ), 5000),
);
const content = createClient(
  ContentService,
  // Through the same client-side mapping as the real clients: calls answer AppErrors.
  domainTransport(createRouterTransport(({ service }) =>
    service(ContentService, {
      getCompany: async ({ companyId }) => ({
        company: { id: companyId, name: "Studio", primaryLanguage: "en", allowImmediateDeletion: companyId === allowedCompany, autoCloseWaitingAfterHours: 168 },
      }),
    }),
  ), 5000),
);

describe("player deletion in the players service", () => {
  let ctx: PlayersTestContext;
  let replica: PlayersServer;
  const gameId = randomUUID();

  beforeAll(async () => {
    ctx = await startPlayers({ content, tickets, media, config: { PLAYER_DELETION_DELAY_SECONDS: DELAY_SECONDS } });
    // A second replica on the same database and NATS prefix: they share the deletion consumer.
    replica = createServer({
      config: ctx.config,
      logger: createLogger({ service: "players-replica", level: "silent" }),
      db: createDb<PlayersDatabase>({ url: ctx.infra.databaseUrl, schema: "players", maxConnections: 10 }),
      nc: await connectBus(ctx.infra.natsUrl, "players-replica"),
      content,
      tickets,
      media,
    });
    await replica.start();
  });
  afterAll(async () => {
    await replica?.stop();
    await ctx?.stop();
  });

  async function newPlayer(companyId = allowedCompany, externalId = `p-${randomUUID()}`) {
    const { player } = await ctx.client.resolvePlayer({ companyId, gameId, externalId, name: "Pat", email: `${externalId}@example.com` });
    return player!;
  }

  async function erasure(playerId: string) {
    const { rows } = await sql<{ completed_at: Date | null; steps: Record<string, { counts: Record<string, number> }>; trigger: string }>`
      select completed_at, steps, trigger from players.erasures where player_id = ${playerId}`.execute(ctx.db);
    return rows[0];
  }

  async function until(check: () => Promise<boolean>, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error("condition not met in time");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const erased = (playerId: string) => until(async () => (await erasure(playerId))?.completed_at instanceof Date);

  it("runs a schedule once when due, with two replicas, and publishes each stage in the documented shape", async () => {
    const scheduled = await Promise.all(Array.from({ length: 8 }, () => newPlayer()));
    const answers = await Promise.all(scheduled.map((p) => ctx.client.schedulePlayerDeletion({ companyId: allowedCompany, playerId: p.id, apiKeyId: "key-1" })));
    for (const answer of answers) expect(answer.created).toBe(true);
    for (const p of scheduled) expect(await erasure(p.id)).toBeUndefined();

    for (const p of scheduled) await erased(p.id);
    for (const p of scheduled) {
      expect(calls.tickets.get(p.id)).toBe(1);
      expect(calls.media.get(p.id)).toBe(1);
      expect((await failureOf(ctx.client.getPlayer({ companyId: allowedCompany, playerId: p.id }))).code).toBe("not_found");
    }

    const events = (await ctx.publishedEvents()).filter((e) => (e.data as { playerId?: string }).playerId === scheduled[0]!.id);
    expect(events.map((e) => e.type)).toEqual([
      "players.player.created", "players.deletion.scheduled", "players.deletion.started", "players.player.deleted",
    ]);
    for (const event of events) expect(schemaProblems(event)).toEqual([]);
    expect(events[3]!.data).toMatchObject({
      trigger: "scheduled",
      requestedBy: { type: "api_key", id: "key-1" },
      counts: { tickets: { tickets: 2, events: 7, breadcrumbs: 3, tags: 1, fieldValues: 2 }, media: { attachments: 4 }, players: { players: 1, schedules: 0 } },
    });
    const text = JSON.stringify(events.slice(1));
    expect(text).not.toContain("@example.com");
    expect(text).not.toContain(scheduled[0]!.externalId!);
  });

  it("keeps the first schedule when asked twice", async () => {
    const p = await newPlayer();
    const first = await ctx.client.schedulePlayerDeletion({ companyId: allowedCompany, playerId: p.id });
    const second = await ctx.client.schedulePlayerDeletion({ companyId: allowedCompany, playerId: p.id });
    expect(second).toMatchObject({ created: false, scheduleId: first.scheduleId, dueAt: first.dueAt });
    await erased(p.id);
    const scheduledEvents = (await ctx.publishedEvents()).filter((e) => e.type === "players.deletion.scheduled" && (e.data as { playerId: string }).playerId === p.id);
    expect(scheduledEvents).toHaveLength(1);
    expect(calls.tickets.get(p.id)).toBe(1);
  });

  it("does nothing when the schedule is gone by its due time (cancelled)", async () => {
    const p = await newPlayer();
    await ctx.client.schedulePlayerDeletion({ companyId: allowedCompany, playerId: p.id });
    await sql`delete from players.deletion_schedules where player_id = ${p.id}`.execute(ctx.db);
    await new Promise((resolve) => setTimeout(resolve, (DELAY_SECONDS + 2) * 1000));
    expect(await erasure(p.id)).toBeUndefined();
    expect(calls.tickets.get(p.id)).toBeUndefined();
    expect((await ctx.client.getPlayer({ companyId: allowedCompany, playerId: p.id })).player?.id).toBe(p.id);
  });

  it("resumes an erasure stopped after the tickets step without repeating it", async () => {
    const p = await newPlayer();
    failing.media = true;
    try {
      const failure = await failureOf(ctx.client.deletePlayer({ companyId: allowedCompany, playerId: p.id, apiKeyId: "key-2" }));
      expect(failure.code).toBe("unavailable");
      const stopped = (await erasure(p.id))!;
      expect(stopped.completed_at).toBeNull();
      expect(Object.keys(stopped.steps)).toEqual(["tickets"]);
    } finally {
      failing.media = false;
    }
    await erased(p.id);
    expect(calls.tickets.get(p.id)).toBe(1);
    expect(calls.media.get(p.id)).toBeGreaterThanOrEqual(2);
    const { rows } = await sql<{ attempts: number; last_error: string | null }>`select attempts, last_error from players.erasures where player_id = ${p.id}`.execute(ctx.db);
    expect(rows[0]!.attempts).toBeGreaterThanOrEqual(2);
    expect(rows[0]!.last_error).toBeNull();
  });

  it("at start-up, starts due schedules and resumes erasures whose NATS messages are gone", async () => {
    const scheduled = await newPlayer();
    const running = await newPlayer();
    // Rows without their messages, as after a loss of NATS's storage.
    await sql`insert into players.deletion_schedules (player_id, company_id, game_id, requested_by_type, due_at)
      values (${scheduled.id}, ${allowedCompany}, ${gameId}, 'api_key', now() - interval '1 minute')`.execute(ctx.db);
    await sql`insert into players.erasures (company_id, player_id, game_id, trigger, requested_by_type, requested_at)
      values (${allowedCompany}, ${running.id}, ${gameId}, 'immediate', 'api_key', now())`.execute(ctx.db);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await erasure(running.id))!.completed_at).toBeNull();

    const restarted = createServer({
      config: ctx.config,
      logger: createLogger({ service: "players-restarted", level: "silent" }),
      db: createDb<PlayersDatabase>({ url: ctx.infra.databaseUrl, schema: "players", maxConnections: 4 }),
      nc: await connectBus(ctx.infra.natsUrl, "players-restarted"),
      content,
      tickets,
      media,
    });
    await restarted.start();
    try {
      await erased(scheduled.id);
      await erased(running.id);
    } finally {
      await restarted.stop();
    }
    expect(calls.tickets.get(scheduled.id)).toBe(1);
    expect(calls.tickets.get(running.id)).toBe(1);
  });

  it("deletes the player's web support sessions with the record, and nobody else's", async () => {
    const p = await newPlayer();
    const other = await newPlayer();
    const session = (externalId: string) => sql`
      insert into players.support_sessions (code_hash, company_id, game_id, environment_id, metadata, verification, player_external_id, expires_at)
      values (${randomUUID()}, ${allowedCompany}, ${gameId}, ${randomUUID()}, ${JSON.stringify({ player: { id: externalId } })}::jsonb, 'unverified', ${externalId}, now() + interval '1 hour')`;
    await session(p.externalId!).execute(ctx.db);
    await session(other.externalId!).execute(ctx.db);
    await ctx.client.deletePlayer({ companyId: allowedCompany, playerId: p.id });
    const { rows } = await sql<{ player_external_id: string }>`select player_external_id from players.support_sessions where game_id = ${gameId}`.execute(ctx.db);
    expect(rows.map((r) => r.player_external_id)).toEqual([other.externalId]);
    expect((await erasure(p.id))!.steps.players!.counts).toEqual({ players: 1, sessions: 1, schedules: 0 });
  });

  it("refuses immediate deletion without the allowance, and another company's player", async () => {
    const p = await newPlayer(deniedCompany);
    expect((await failureOf(ctx.client.deletePlayer({ companyId: deniedCompany, playerId: p.id }))).code).toBe("permission_denied");
    expect((await failureOf(ctx.client.deletePlayer({ companyId: allowedCompany, playerId: p.id }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.schedulePlayerDeletion({ companyId: allowedCompany, playerId: p.id }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.schedulePlayerDeletion({ companyId: allowedCompany, playerId: "nope" }))).code).toBe("not_found");
    expect(await erasure(p.id)).toBeUndefined();
  });
});
