// CreateTicket (POST /tickets: players found or created, lenient metadata, duplicates,
// blocked players) and the support page's chat, which opens through the same creation, against
// the real content and players services.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createRequest, createTicket, getTicket } from "./helpers.ts";

describe("CreateTicket", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets({ SUPPORT_APP_URL: "https://support.test/app/" });
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  it("creates a new API ticket with every public ticket field and the message as its first PLAYER_MESSAGE", async () => {
    const request = createRequest(tenant, {
      message: "My ship is gone",
      language: "fr",
      platform: "ios",
      player: { id: "p-full", name: "Pat Player", email: "pat@example.com", tier: 2 },
      tags: ["bug", "crash"],
      fields: { level: 12, ship: ["fighter", "explorer"], bought: "2026-01-02", spender: true, note: "hello" },
    });
    const created = await ctx.tickets.createTicket(request);
    expect(created.runningId).toBe(1n);
    const ticket = await getTicket(ctx, tenant, created.ticketId);
    expect(ticket).toMatchObject({
      id: created.ticketId,
      runningId: 1n,
      url: `https://support.test/app/tickets/${created.ticketId}`,
      gameId: tenant.games.galaxy!.id,
      gameEnvironmentId: tenant.games.galaxy!.environments["galaxy-prod"]!.id,
      playerId: "p-full",
      playerName: "Pat Player",
      email: "pat@example.com",
      status: "new",
      supportSource: "API",
      channels: ["email"],
      language: "fr",
      tags: ["bug", "crash"],
      fields: { level: 12, ship: ["fighter", "explorer"], bought: "2026-01-02", spender: true, note: "hello" },
      metadata: { platform: "ios", playerTier: 2 },
    });
    expect(ticket.servicePlayerId).toMatch(/^[0-9a-f-]{36}$/);
    for (const absent of ["resolutionType", "csatScore", "csatReview", "issueSummary", "issueResolution", "followUpTicketId", "reopenedFromTicketId", "assigneeId"] as const) {
      expect(ticket[absent], absent).toBeUndefined();
    }
    expect(ticket.createdAt).toBeDefined();
    expect(ticket.lastActivityAt).toEqual(ticket.createdAt);

    const { events } = await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId: created.ticketId });
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toEqual({
      case: "playerMessage",
      value: expect.objectContaining({ message: "My ship is gone", language: "fr", attachments: [] }),
    });

    // The player is the players service's record of (game, external id).
    const { player } = await ctx.players.getPlayer({ companyId: tenant.companyId, playerId: ticket.servicePlayerId! });
    expect(player).toMatchObject({ externalId: "p-full", email: "pat@example.com", name: "Pat Player", tier: 2 });
  });

  it("publishes tickets.ticket.created and tickets.ticket.message_added through the outbox", async () => {
    const { ticketId } = await createTicket(ctx, tenant);
    await eventually(() => ctx.published.filter((e) => (e.data as { id?: string; ticketId?: string }).id === ticketId || (e.data as { ticketId?: string }).ticketId === ticketId).length === 2);
    const types = ctx.published.filter((e) => (e.data as { id?: string }).id === ticketId || (e.data as { ticketId?: string }).ticketId === ticketId).map((e) => e.type);
    expect(types.sort()).toEqual(["tickets.ticket.created", "tickets.ticket.message_added"]);
    const created = ctx.published.find((e) => e.type === "tickets.ticket.created" && (e.data as { id: string }).id === ticketId)!;
    expect(created.companyId).toBe(tenant.companyId);
    expect(created.data).toMatchObject({ id: ticketId, status: "new", supportSource: "API" });
  });

  it("gives an identified player tier 1 unless a tier is given, and an email-only player no tier", async () => {
    const identified = await createTicket(ctx, tenant, { player: { id: "p-tier-default", email: "t1@example.com" } });
    expect((await getTicket(ctx, tenant, identified.ticketId)).metadata).toEqual({ platform: "not_specified", playerTier: 1 });
    const anonymous = await createTicket(ctx, tenant, { player: { email: "only-mail@example.com" } });
    const ticket = await getTicket(ctx, tenant, anonymous.ticketId);
    expect(ticket.metadata).toEqual({ platform: "not_specified" });
    expect(ticket.playerId).toBeUndefined();
    expect(ticket.email).toBe("only-mail@example.com");
  });

  it("opens a support page chat through the same creation: WEB, chat, platform web, language en, no duplicate check", async () => {
    const galaxy = tenant.games.galaxy!;
    const environmentId = galaxy.environments["galaxy-prod"]!.id;
    const request = {
      companyId: tenant.companyId,
      gameId: galaxy.id.toUpperCase(),
      environmentId: environmentId.toUpperCase(),
      message: "Chat from the support page",
      player: { id: `chat-${randomUUID()}`, name: " Chatty ", tier: 9 },
      tags: ["bug", "unknown"],
      fields: { note: "kept", level: { nested: 1 } },
    };
    const first = await ctx.playerSide.createPlayerTicket({ ...request, sessionId: randomUUID() });
    const second = await ctx.playerSide.createPlayerTicket({ ...request, sessionId: randomUUID() });
    expect(second.ticketId).not.toBe(first.ticketId);
    expect(await getTicket(ctx, tenant, first.ticketId)).toMatchObject({
      gameId: galaxy.id,
      gameEnvironmentId: environmentId,
      playerId: request.player.id,
      playerName: "Chatty",
      supportSource: "WEB",
      channels: ["chat"],
      language: "en",
      tags: ["bug"],
      fields: { note: "kept" },
      metadata: { platform: "web", playerTier: 1 },
    });
  });

  it("ignores tags and fields the game does not define and values of the wrong type", async () => {
    const { ticketId } = await createTicket(ctx, tenant, {
      tags: ["bug", "harvest", "unknown", "bug"],
      fields: { level: "twelve", ship: "tank", crop: "wheat", unknown: 1, note: "kept", spender: "yes", bought: "tomorrow" },
    });
    const ticket = await getTicket(ctx, tenant, ticketId);
    // harvest and crop belong to the other game of the company.
    expect(ticket.tags).toEqual(["bug"]);
    expect(ticket.fields).toEqual({ note: "kept" });
  });

  it("refuses a field value that is not a string, number, boolean or array of strings", async () => {
    const failure = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { fields: { level: { nested: 1 }, note: [["x"]] } })));
    expect(failure).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
    expect(failure.details?.issues?.map((i) => i.path)).toEqual(["/metadata/fields/level", "/metadata/fields/note"]);
  });

  it("names every invalid input", async () => {
    const failure = await failureOf(
      ctx.tickets.createTicket(createRequest(tenant, { message: "  ", language: "xx", channels: [], platform: "amiga", player: { email: "nope", tier: 7 } })),
    );
    expect(failure.details?.issues?.map((i) => i.path)).toEqual([
      "/message", "/language", "/channels", "/platform", "/metadata/player/email", "/metadata/player/tier",
    ]);
    const chat = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { channels: ["chat"] })));
    expect(chat.details?.issues).toEqual([{ path: "/channels/0", message: "must be email" }]);
  });

  it("answers game not found for an unknown game, another company's game and a deleted game", async () => {
    for (const gameId of ["4b1c4b1c-0000-4000-8000-000000000000", other.games.galaxy!.id, "not-a-uuid"]) {
      const failure = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { gameId })));
      expect(failure, gameId).toMatchObject({ code: gameId === "not-a-uuid" ? "invalid_argument" : "not_found" });
      if (gameId !== "not-a-uuid") expect(failure.message).toBe("game not found");
    }
    const doomed = await ctx.applyTenant(tenantFile());
    await createTicket(ctx, doomed, { gameId: doomed.games.farm!.id });
    await ctx.admin(["games", "delete", doomed.games.farm!.id]);
    // content's game.deleted event evicts the cached game (the TTL would, later).
    const attempt = () => ctx.tickets.createTicket(createRequest(doomed, { gameId: doomed.games.farm!.id })).then(() => "created", () => "refused");
    await eventually(async () => (await attempt()) === "refused");
    const failure = await failureOf(ctx.tickets.createTicket(createRequest(doomed, { gameId: doomed.games.farm!.id })));
    expect(failure).toMatchObject({ code: "not_found", message: "game not found" });
  });

  it("refuses a blocked player with PLAYER_BLOCKED", async () => {
    await ctx.players.blockPlayer({ companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, externalId: "p-blocked" });
    const failure = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { player: { id: "p-blocked", email: "b@example.com" } })));
    expect(failure).toMatchObject({ code: "failed_precondition", details: { type: "PLAYER_BLOCKED" } });
    // Blocked in one game only.
    await createTicket(ctx, tenant, { gameId: tenant.games.farm!.id, player: { id: "p-blocked", email: "b@example.com" } });
  });

  describe("duplicate check", () => {
    const player = { id: "p-dup", email: "dup@example.com" };

    it("refuses the same first message after trim, case folding and whitespace collapsing", async () => {
      const first = await createTicket(ctx, tenant, { player, message: "My  game crashes\non start" });
      const failure = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { player, message: "  MY GAME crashes on   START " })));
      expect(failure).toMatchObject({
        code: "failed_precondition",
        message: "The player already has a similar open ticket",
        details: { type: "DUPLICATE_OPEN_TICKET_DETECTED", payload: { duplicateConversationId: first.ticketId } },
      });
    });

    it("refuses a similar message (trigram similarity >= 0.6) and accepts a different one", async () => {
      const p = { id: "p-dup-similar", email: "dup2@example.com" };
      const first = await createTicket(ctx, tenant, { player: p, message: "I cannot log in to my account since yesterday" });
      const similar = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { player: p, message: "I cannot log into my account since yesterday!" })));
      expect(similar.details?.payload).toEqual({ duplicateConversationId: first.ticketId });
      await createTicket(ctx, tenant, { player: p, message: "Where is my refund for the gold pack?" });
    });

    it("is skipped with skipDuplicateCheck", async () => {
      const p = { id: "p-dup-skip", email: "dup3@example.com" };
      await createTicket(ctx, tenant, { player: p, message: "same text" });
      await createTicket(ctx, tenant, { player: p, message: "same text", skipDuplicateCheck: true });
    });

    it("ignores closed tickets, other games and other players", async () => {
      const p = { id: "p-dup-closed", email: "dup4@example.com" };
      const first = await createTicket(ctx, tenant, { player: p, message: "closed one" });
      await ctx.tickets.performTicketActions({ companyId: tenant.companyId, ticketId: first.ticketId, actions: [{ action: { case: "resolveTicket", value: {} } }] });
      await createTicket(ctx, tenant, { player: p, message: "closed one" });
      await createTicket(ctx, tenant, { player: p, message: "closed one", gameId: tenant.games.farm!.id });
      await createTicket(ctx, tenant, { player: { id: "p-dup-someone-else", email: "x@example.com" }, message: "closed one" });
    });

    it("lets only one of two identical requests sent at once through", async () => {
      const p = { id: "p-dup-race", email: "race@example.com" };
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => ctx.tickets.createTicket(createRequest(tenant, { player: p, message: "race" }))));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    });
  });
});
