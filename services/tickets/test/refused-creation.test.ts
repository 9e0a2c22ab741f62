// A ticket creation that is refused (a duplicate open ticket, a blocked player, a bad
// attachment id) changes nothing: the players service neither creates nor updates the player,
// and publishes no player event. Only a creation that passes every check resolves the player.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createDb, sql, type Kysely } from "@support/db";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createRequest, createTicket } from "./helpers.ts";

describe("a refused ticket creation leaves the player untouched", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let playersDb: Kysely<unknown>;
  let observer: NatsConnection;
  /** Player events published on NATS under this run's prefix, in arrival order. */
  const playerEvents: EventEnvelope[] = [];

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    playersDb = createDb({ url: ctx.infra.databaseUrl, schema: "players", maxConnections: 2 });
    observer = await connectBus(ctx.infra.natsUrl, "refused-creation-observer");
    const subscription = observer.subscribe(`${ctx.infra.natsPrefix}players.>`);
    void (async () => {
      for await (const message of subscription) playerEvents.push(message.json<EventEnvelope>());
    })();
  });
  afterAll(async () => {
    await observer?.drain();
    await playersDb?.destroy();
    await ctx?.stop();
  });

  /** Every stored player of the tenant, whole rows as JSON. */
  const playerRows = async (): Promise<{ id: string; row: unknown }[]> =>
    (await sql<{ id: string; row: unknown }>`
      select id, to_jsonb(p) as row from players.players p where company_id = ${tenant.companyId} order by id`.execute(playersDb)).rows;

  /**
   * Creates a sentinel player and waits for its event: the outbox publishes in order, so every
   * player event written before has then been received. Answers the sentinel's id.
   */
  async function settle(): Promise<string> {
    const sentinel = (await ctx.players.resolvePlayer({ companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, externalId: `sentinel-${randomUUID()}` })).player!;
    await eventually(() => playerEvents.some((event) => (event.data as { playerId?: string }).playerId === sentinel.id));
    return sentinel.id;
  }

  /** Runs a request that must be refused and checks that it changed no player and published no player event. */
  async function expectPlayersUntouched(refused: () => Promise<{ code: string; details?: unknown }>, expected: object): Promise<void> {
    await settle();
    const before = await playerRows();
    const from = playerEvents.length;
    expect(await refused()).toMatchObject(expected);
    const sentinel = await settle();
    expect(playerEvents.slice(from).map((event) => [event.type, (event.data as { playerId?: string }).playerId])).toEqual([["players.player.created", sentinel]]);
    expect((await playerRows()).filter((player) => player.id !== sentinel)).toEqual(before);
  }

  it("a duplicate open ticket does not rename, re-address or re-tier the player", async () => {
    const player = { id: `dup-${randomUUID()}`, name: "First name", email: "first@example.com", tier: 1 };
    await createTicket(ctx, tenant, { player, message: "My gems never arrived" });
    await expectPlayersUntouched(
      () => failureOf(ctx.tickets.createTicket(createRequest(tenant, { player: { ...player, name: "Second name", email: "second@example.com", tier: 3 }, message: "My gems never arrived" }))),
      { code: "failed_precondition", details: { type: "DUPLICATE_OPEN_TICKET_DETECTED" } },
    );
  });

  it("a blocked player is not renamed", async () => {
    const externalId = `blocked-${randomUUID()}`;
    await ctx.players.blockPlayer({ companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, externalId });
    await expectPlayersUntouched(
      () => failureOf(ctx.tickets.createTicket(createRequest(tenant, { player: { id: externalId, name: "Renamed", email: "blocked@example.com", tier: 2 } }))),
      { code: "failed_precondition", details: { type: "PLAYER_BLOCKED" } },
    );
  });

  it("a bad attachment id creates no player, and does not update a known one", async () => {
    const badAttachment = { code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/attachments/0" }] } };
    await expectPlayersUntouched(
      () => failureOf(ctx.tickets.createTicket(createRequest(tenant, { attachments: ["AAAAAAAAAAAAAAAAAAAAAAAA"] }))),
      badAttachment,
    );
    const player = { id: `known-${randomUUID()}`, name: "Known", email: "known@example.com" };
    await createTicket(ctx, tenant, { player });
    await expectPlayersUntouched(
      () => failureOf(ctx.tickets.createTicket(createRequest(tenant, { player: { ...player, name: "Other name" }, attachments: ["AAAAAAAAAAAAAAAAAAAAAAAA"] }))),
      badAttachment,
    );
  });

  it("a chat ticket from the support page with a bad attachment id creates no player", async () => {
    await expectPlayersUntouched(
      () =>
        failureOf(
          ctx.playerSide.createPlayerTicket({
            companyId: tenant.companyId,
            gameId: tenant.games.galaxy!.id,
            message: "Chat with a broken attachment",
            attachments: ["AAAAAAAAAAAAAAAAAAAAAAAA"],
            player: { id: `chat-${randomUUID()}`, name: "Chatty" },
            sessionId: randomUUID(),
          }),
        ),
      { code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/attachments/0" }] } },
    );
  });

  it("an accepted creation still creates the player, with the request's name", async () => {
    const externalId = `accepted-${randomUUID()}`;
    const from = playerEvents.length;
    await createTicket(ctx, tenant, { player: { id: externalId, name: "Accepted", email: "accepted@example.com" } });
    const found = await ctx.players.findPlayer({ companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, externalId });
    expect(found.player).toMatchObject({ name: "Accepted", email: "accepted@example.com" });
    await eventually(() => playerEvents.slice(from).some((event) => event.type === "players.player.created" && (event.data as { playerId?: string }).playerId === found.player!.id));
  });
});
