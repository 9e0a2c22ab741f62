// A POST /tickets or POST /player-api/tickets refused with 400 (a duplicate open ticket, a
// blocked player, a bad attachment id) changes nothing, through the real stack: no player is
// created or updated in players.players and no player event leaves the players outbox.
import { randomUUID } from "node:crypto";
import { connectBus, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createDb, sql, type Kysely } from "@support/db";
import { PlayersService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

describe("a ticket creation refused through REST leaves the player untouched", () => {
  let stack: Stack;
  let tenant: TenantResult;
  let key: string;
  let galaxy: string;
  let db: Kysely<unknown>;
  let observer: NatsConnection;
  /** Player events published on NATS under this run's prefix, in arrival order. */
  const playerEvents: EventEnvelope[] = [];

  beforeAll(async () => {
    stack = await startStack();
    tenant = await stack.applyTenant(tenantA);
    key = tenant.apiKeys.main!;
    galaxy = tenant.games.galaxy!.id;
    db = createDb({ url: stack.infra.databaseUrl, schema: "players", maxConnections: 2 });
    observer = await connectBus(stack.infra.natsUrl, "refused-ticket-creation-observer");
    const subscription = observer.subscribe(`${stack.infra.natsPrefix}players.>`);
    void (async () => {
      for await (const message of subscription) playerEvents.push(message.json<EventEnvelope>());
    })();
  });
  afterAll(async () => {
    await observer?.drain();
    await db?.destroy();
    await stack?.stop();
  });

  const ticket = (player: Record<string, unknown>, overrides: Record<string, unknown> = {}) => ({
    gameId: galaxy,
    message: "My gems never arrived after the purchase",
    language: "en",
    channels: ["email"],
    metadata: { player },
    ...overrides,
  });
  const create = (json: unknown) => stack.request("/tickets", { method: "POST", key, json });

  /** Every stored player, whole rows as JSON. */
  const playerRows = async (): Promise<{ id: string; row: unknown }[]> =>
    (await sql<{ id: string; row: unknown }>`select id, to_jsonb(p) as row from players.players p order by id`.execute(db)).rows;

  /**
   * Creates a sentinel player and waits for its event: the outbox publishes in order, so every
   * player event written before has then been received. Answers the sentinel's id.
   */
  async function settle(): Promise<string> {
    const players = createServiceClient(PlayersService, stack.serviceUrls.players);
    const { player } = await players.resolvePlayer({ companyId: tenant.companyId, gameId: galaxy, externalId: `sentinel-${randomUUID()}` });
    const until = Date.now() + 10_000;
    while (!playerEvents.some((event) => (event.data as { playerId?: string }).playerId === player!.id)) {
      if (Date.now() > until) throw new Error("the sentinel's player event did not arrive");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return player!.id;
  }

  /** Sends a request that must be refused and checks that no player changed and no player event left. */
  async function expectPlayersUntouched(refused: () => Promise<StackResponse>, expected: { status: number; body: object }): Promise<void> {
    await settle();
    const before = await playerRows();
    const from = playerEvents.length;
    const response = await refused();
    expect(response.status, response.text).toBe(expected.status);
    expect(response.body).toMatchObject(expected.body);
    const sentinel = await settle();
    expect(playerEvents.slice(from).map((event) => [event.type, (event.data as { playerId?: string }).playerId])).toEqual([["players.player.created", sentinel]]);
    expect((await playerRows()).filter((player) => player.id !== sentinel)).toEqual(before);
  }

  it("400 DUPLICATE_OPEN_TICKET_DETECTED does not rename, re-address or re-tier the player", async () => {
    const player = { id: `dup-${randomUUID()}`, email: "first@example.com", name: "First name", tier: 1 };
    const first = await create(ticket(player));
    expect(first.status, first.text).toBe(200);
    await expectPlayersUntouched(() => create(ticket({ ...player, email: "second@example.com", name: "Second name", tier: 3 })), {
      status: 400,
      body: { code: "failed_precondition", details: { type: "DUPLICATE_OPEN_TICKET_DETECTED" } },
    });
  });

  it("400 PLAYER_BLOCKED does not rename the blocked player", async () => {
    const id = `blocked-${randomUUID()}`;
    await stack.admin(["players", "block", "--game", galaxy, "--player-id", id]);
    await expectPlayersUntouched(() => create(ticket({ id, email: "blocked@example.com", name: "Renamed", tier: 2 })), {
      status: 400,
      body: { code: "failed_precondition", details: { type: "PLAYER_BLOCKED" } },
    });
  });

  it("a bad attachment id creates no player and does not update a known one", async () => {
    const badAttachment = { status: 400, body: { code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/attachments/0" }] } } };
    await expectPlayersUntouched(() => create(ticket({ id: `new-${randomUUID()}`, email: "new@example.com", name: "New" }, { attachments: ["a-1"] })), badAttachment);

    const known = { id: `known-${randomUUID()}`, email: "known@example.com", name: "Known" };
    const first = await create(ticket(known, { message: "An earlier, different question about my account" }));
    expect(first.status, first.text).toBe(200);
    await expectPlayersUntouched(() => create(ticket({ ...known, name: "Other name" }, { attachments: ["a-1"] })), badAttachment);
  });

  it("a chat ticket with a bad attachment id creates no player", async () => {
    const token = tenant.games.galaxy!.environments["galaxy-production"]!.token;
    const session = await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: `chat-${randomUUID()}`, name: "Chatty" } } });
    expect(session.status, session.text).toBe(200);
    const { sessionCode } = session.body as { sessionCode: string };
    await expectPlayersUntouched(
      () =>
        stack.request("/player-api/tickets", {
          method: "POST",
          json: { message: "Chat with a broken attachment", attachments: ["a-1"] },
          headers: { authorization: `Session ${sessionCode}` },
        }),
      { status: 400, body: { code: "invalid_argument", details: { type: "VALIDATION_ERROR" } } },
    );
  });
});
