// Listing and creating tickets, ticket actions, events and breadcrumbs through the REST API of the real stack (gateway, content,
// players, tickets). Every answer is also checked against the OpenAPI document by the stack.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

function ticketsTenant(name: string) {
  return {
    company: { name, primaryLanguage: "en" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${name.toLowerCase()}`, languages: ["en", "fr"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Pixel Farm", slug: `farm-${name.toLowerCase()}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [{ ref: "alice", name: "Alice", email: `alice@${name.toLowerCase()}.example`, games: ["galaxy"] }],
    tags: [{ name: "bug", game: null }, { name: "vip", game: null }, { name: "crash", game: "galaxy" }],
    fields: [
      { key: "level", name: "Level", type: "number", game: null },
      { key: "ship", name: "Ship", type: "dropdown", game: "galaxy", options: ["fighter", "explorer"] },
    ],
  };
}

interface TicketDto {
  id: string;
  runningId: number;
  status: string;
  tags: string[];
  fields: Record<string, unknown>;
  [key: string]: unknown;
}

describe("tickets through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let b: TenantResult;
  let keyA: string;
  let keyB: string;
  let galaxy: string;
  let counter = 0;

  const body = (overrides: Record<string, unknown> = {}) => {
    counter += 1;
    return {
      gameId: galaxy,
      message: `Request number ${counter} about something else entirely ${counter * 7919}`,
      language: "en",
      channels: ["email"],
      metadata: { player: { id: `player-${counter}`, email: `p${counter}@example.com` } },
      ...overrides,
    };
  };
  const create = async (key: string, json: unknown) => stack.request("/tickets", { method: "POST", key, json });
  const newTicket = async (overrides: Record<string, unknown> = {}) => {
    const response = await create(keyA, body(overrides));
    expect(response.status, response.text).toBe(200);
    return response.body as { ticketId: string; runningId: number };
  };
  const actions = (ticketId: string, list: unknown[], key = keyA) => stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key, json: { actions: list } });
  const list = async (query: string, key = keyA) => stack.request(`/tickets${query}`, { key });

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(ticketsTenant("Alpha"));
    b = await stack.applyTenant(ticketsTenant("Beta"));
    keyA = a.apiKeys.main!;
    keyB = b.apiKeys.main!;
    galaxy = a.games.galaxy!.id;
  });
  afterAll(() => stack?.stop());

  describe("POST /tickets", () => {
    it("creates a ticket and answers its id and running id", async () => {
      const response = await create(keyA, body({ platform: "android", metadata: { player: { id: "p-x", name: "Pat", email: "pat@example.com", tier: 2 }, tags: ["bug", "nope"], fields: { level: 4, ship: "tank" } } }));
      expect(response.status).toBe(200);
      const { ticketId, runningId } = response.body as { ticketId: string; runningId: number };
      expect(runningId).toBe(1);
      const listed = (await list(`?ticketId=${ticketId}`)).body as { tickets: TicketDto[] };
      expect(listed.tickets).toEqual([
        {
          id: ticketId,
          runningId: 1,
          url: `https://support.example.com/app/tickets/${ticketId}`,
          gameId: galaxy,
          gameEnvironmentId: a.games.galaxy!.environments["galaxy-prod"]!.id,
          servicePlayerId: expect.any(String),
          playerId: "p-x",
          playerName: "Pat",
          email: "pat@example.com",
          status: "new",
          supportSource: "API",
          channels: ["email"],
          language: "en",
          resolutionType: null,
          csatScore: null,
          csatReview: null,
          issueSummary: null,
          issueResolution: null,
          followUpTicketId: null,
          reopenedFromTicketId: null,
          createdAt: expect.any(String),
          lastActivityAt: expect.any(String),
          tags: ["bug"],
          fields: { level: 4 },
          metadata: { platform: "android", playerTier: 2 },
        },
      ]);
    });

    it("refuses an invalid body with a VALIDATION_ERROR naming the value", async () => {
      const response = await create(keyA, { ...body(), metadata: { player: { id: "x" } } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/metadata/player/email" }] } });
      const attachments = await create(keyA, body({ attachments: ["a-1"] }));
      expect(attachments.status).toBe(400);
      expect(attachments.body).toMatchObject({ details: { type: "VALIDATION_ERROR", issues: [{ path: "/attachments/0" }] } });
    });

    it("answers 404 for another company's game", async () => {
      const response = await create(keyA, body({ gameId: b.games.galaxy!.id }));
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: "not_found", message: "game not found" });
    });

    it("answers DUPLICATE_OPEN_TICKET_DETECTED naming the open ticket, unless skipDuplicateCheck", async () => {
      const player = { id: "dup", email: "dup@example.com" };
      const first = await newTicket({ message: "The shop does not open", metadata: { player } });
      const again = await create(keyA, body({ message: "  the SHOP does not open ", metadata: { player } }));
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        code: "failed_precondition",
        message: "The player already has a similar open ticket",
        details: { type: "DUPLICATE_OPEN_TICKET_DETECTED", payload: { duplicateConversationId: first.ticketId } },
      });
      expect((await create(keyA, body({ message: "The shop does not open", metadata: { player }, skipDuplicateCheck: true }))).status).toBe(200);
    });

    it("answers PLAYER_BLOCKED for a blocked player", async () => {
      await stack.admin(["players", "block", "--game", galaxy, "--player-id", "blocked-1"]);
      const response = await create(keyA, body({ metadata: { player: { id: "blocked-1", email: "blocked@example.com" } } }));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ code: "failed_precondition", message: "The player is blocked from contacting support", details: { type: "PLAYER_BLOCKED" } });
    });
  });

  describe("GET /tickets", () => {
    let ids: string[];
    beforeAll(async () => {
      const c = await stack.applyTenant(ticketsTenant("Gamma"));
      keyC = c.apiKeys.main!;
      ids = [];
      for (let i = 0; i < 5; i += 1) {
        const response = await create(keyC, { ...body({ gameId: c.games.galaxy!.id }), metadata: { player: { id: `g-${i}`, email: `g${i}@example.com` }, tags: i % 2 === 0 ? ["vip"] : [] } });
        ids.push((response.body as { ticketId: string }).ticketId);
      }
    });
    let keyC: string;

    it("pages in both orders with an opaque cursor that is null at the end", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, keyC);
        expect(response.status).toBe(200);
        const page = response.body as { tickets: TicketDto[]; pagination: { cursor: string | null } };
        seen.push(...page.tickets.map((t) => t.id));
        cursor = page.pagination.cursor;
      } while (cursor !== null);
      expect(seen).toEqual(ids);
      const desc = (await list("?order=desc&limit=1000", keyC)).body as { tickets: TicketDto[]; pagination: { cursor: string | null } };
      expect(desc.tickets.map((t) => t.id)).toEqual([...ids].reverse());
      expect(desc.pagination.cursor).toBeNull();
    });

    it("filters by JSON-encoded tags and statuses and by dates", async () => {
      const vip = (await list(`?tags=${encodeURIComponent('["vip"]')}&status=${encodeURIComponent('["new"]')}`, keyC)).body as { tickets: TicketDto[] };
      expect(vip.tickets.map((t) => t.id)).toEqual([ids[0], ids[2], ids[4]]);
      const today = new Date().toISOString().slice(0, 10);
      expect(((await list(`?createdBefore=${today}`, keyC)).body as { tickets: TicketDto[] }).tickets).toHaveLength(5);
      expect(((await list("?createdBefore=2000-01-01", keyC)).body as { tickets: TicketDto[] }).tickets).toHaveLength(0);
    });

    it("refuses a cursor of the other order, an altered one and another company's on /query/cursor", async () => {
      const { pagination } = (await list("?limit=1", keyC)).body as { pagination: { cursor: string } };
      for (const [query, key] of [
        [`?order=desc&cursor=${encodeURIComponent(pagination.cursor)}`, keyC],
        [`?cursor=${encodeURIComponent(`${pagination.cursor}x`)}`, keyC],
        [`?cursor=${encodeURIComponent(pagination.cursor)}`, keyB],
      ] as const) {
        const response = await list(query, key);
        expect(response.status, query).toBe(400);
        expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/query/cursor" }] } });
      }
    });

    it("refuses malformed filters and limits", async () => {
      for (const [query, path] of [
        ["?tags=bug", "/query/tags"],
        ["?status=%5B%22open%22%5D", "/query/status"],
        ["?fields=%5B%5D", "/query/fields"],
        ["?limit=0", "/query/limit"],
        ["?limit=1001", "/query/limit"],
        ["?gameId=galaxy", "/query/gameId"],
      ]) {
        const response = await list(query!, keyC);
        expect(response.status, query).toBe(400);
        expect((response.body as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path)).toContain(path);
      }
    });

    it("shows only the caller's company", async () => {
      const other = (await list("?limit=1000", keyB)).body as { tickets: TicketDto[] };
      expect(other.tickets.some((t) => ids.includes(t.id))).toBe(false);
    });
  });

  describe("POST /tickets/{ticketId}/actions", () => {
    it("applies the actions and answers success", async () => {
      const { ticketId } = await newTicket();
      const response = await actions(ticketId, [
        { type: "assignTicket", assigneeId: a.users.alice, userId: a.users.alice },
        { type: "addTags", tagNames: ["crash"] },
        { type: "setFields", fields: { ship: ["fighter"] } },
        { type: "sendMessage", message: "On it", userId: a.users.alice },
        { type: "setStatus", status: "waiting" },
        { type: "setPlayerInfo", player: { name: "Renamed", tier: 3 } },
      ]);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ success: true });
      const [ticket] = ((await list(`?ticketId=${ticketId}`)).body as { tickets: TicketDto[] }).tickets;
      expect(ticket).toMatchObject({ status: "waiting", tags: ["crash"], fields: { ship: ["fighter"] }, playerName: "Renamed", metadata: { playerTier: 3 } });
    });

    it("applies nothing when one action is invalid and names it", async () => {
      const { ticketId } = await newTicket();
      const response = await actions(ticketId, [
        { type: "addTags", tagNames: ["vip"] },
        { type: "addPrivateNote", message: "note" },
        { type: "addTags", tagNames: ["undefined-tag"] },
      ]);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ details: { type: "VALIDATION_ERROR", issues: [{ path: "/actions/2/tagNames/0" }] } });
      const [ticket] = ((await list(`?ticketId=${ticketId}`)).body as { tickets: TicketDto[] }).tickets;
      expect(ticket!.tags).toEqual([]);
      const events = (await stack.request(`/tickets/${ticketId}/events`, { key: keyA })).body as { events: unknown[] };
      expect(events.events).toHaveLength(1);
    });

    it("refuses two status actions, a user without access, and a closed ticket (409)", async () => {
      const { ticketId } = await newTicket();
      const two = await actions(ticketId, [{ type: "setStatus", status: "waiting" }, { type: "setOnHold", onHold: true }]);
      expect(two.status).toBe(400);
      expect(two.body).toMatchObject({ details: { issues: [{ path: "/actions/1/type" }] } });
      const stranger = await actions(ticketId, [{ type: "resolveTicket", userId: b.users.alice }]);
      expect(stranger.status).toBe(400);
      expect(stranger.body).toMatchObject({ details: { issues: [{ path: "/actions/0/userId" }] } });
      expect((await actions(ticketId, [{ type: "rejectTicket" }])).status).toBe(200);
      const closed = await actions(ticketId, [{ type: "sendMessage", message: "late" }]);
      expect(closed.status).toBe(409);
      expect(closed.body).toMatchObject({ code: "conflict" });
    });

    it("answers 404 for another company's ticket", async () => {
      const { ticketId } = await newTicket();
      const response = await actions(ticketId, [{ type: "resolveTicket" }], keyB);
      expect(response.status).toBe(404);
    });
  });

  describe("GET /tickets/{ticketId}/events and /breadcrumbs", () => {
    it("lists PLAYER_MESSAGE, AGENT_MESSAGE, PRIVATE_NOTE and END events with their documented fields", async () => {
      const { ticketId } = await newTicket({ message: "Bonjour", language: "fr" });
      await actions(ticketId, [
        { type: "sendMessage", message: "Salut" },
        { type: "addPrivateNote", message: "internal" },
        { type: "resolveTicket" },
      ]);
      const response = await stack.request(`/tickets/${ticketId}/events`, { key: keyA });
      expect(response.status).toBe(200);
      const { events } = response.body as { events: Record<string, unknown>[] };
      const common = { id: expect.any(String), createdAt: expect.any(String) };
      expect(events).toEqual([
        { ...common, type: "PLAYER_MESSAGE", message: "Bonjour", language: "fr", attachments: [] },
        { ...common, type: "AGENT_MESSAGE", message: "Salut", language: "fr", attachments: [] },
        { ...common, type: "PRIVATE_NOTE", message: "internal", attachments: [] },
        { ...common, type: "END", resolutionType: "resolved" },
      ]);
    });

    it("lists no breadcrumbs and a null clock offset for an API ticket", async () => {
      const { ticketId } = await newTicket();
      const response = await stack.request(`/tickets/${ticketId}/breadcrumbs`, { key: keyA });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ breadcrumbs: [], clientClockOffsetMs: null });
    });

    it("answers 404 for another company's ticket", async () => {
      const { ticketId } = await newTicket();
      expect((await stack.request(`/tickets/${ticketId}/events`, { key: keyB })).status).toBe(404);
      expect((await stack.request(`/tickets/${ticketId}/breadcrumbs`, { key: keyB })).status).toBe(404);
    });
  });
});
