// Conformance of the running system with the public API (tenancy, authentication, error
// bodies, tickets and their actions), for the rules a client developer hits that the other
// suites do not cover. Every answer is also
// checked against the OpenAPI document by the stack.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

function tenant(name: string) {
  return {
    company: { name, primaryLanguage: "en" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${name.toLowerCase()}`, languages: ["en", "fr"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Pixel Farm", slug: `farm-${name.toLowerCase()}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [
      { ref: "alice", name: "Alice", email: `alice@${name.toLowerCase()}.example`, games: ["galaxy"] },
      { ref: "bob", name: "Bob", email: `bob@${name.toLowerCase()}.example`, games: ["farm"] },
    ],
    tags: [{ name: "bug", game: null }, { name: "crash", game: "galaxy" }, { name: "harvest", game: "farm" }],
    fields: [
      { key: "level", name: "Level", type: "number", game: null },
      { key: "note", name: "Note", type: "text", game: null },
      { key: "paid", name: "Paid", type: "boolean", game: null },
      { key: "ship", name: "Ship", type: "dropdown", game: "galaxy", options: ["fighter", "explorer"] },
    ],
  };
}

interface Ticket {
  id: string;
  status: string;
  [key: string]: unknown;
}

const TICKET_KEYS = [
  "id", "runningId", "url", "gameId", "gameEnvironmentId", "servicePlayerId", "playerId", "playerName", "email", "status",
  "supportSource", "channels", "language", "resolutionType", "csatScore", "csatReview", "issueSummary", "issueResolution",
  "followUpTicketId", "reopenedFromTicketId", "createdAt", "lastActivityAt", "tags", "fields", "metadata",
];


describe("conformance with the contract", () => {
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
      message: `Conformance request ${counter} zq${counter * 7919}x ${"abcdefghijklmnopqrstuvwxyz".slice(counter % 20, (counter % 20) + 6)}`,
      language: "en",
      channels: ["email"],
      metadata: { player: { id: `c-player-${counter}`, email: `c${counter}@example.com` } },
      ...overrides,
    };
  };
  const create = (json: unknown, key = keyA) => stack.request("/tickets", { method: "POST", key, json });
  const newTicket = async (overrides: Record<string, unknown> = {}) => {
    const response = await create(body(overrides));
    expect(response.status, response.text).toBe(200);
    return (response.body as { ticketId: string }).ticketId;
  };
  const actions = (ticketId: string, list: unknown[], key = keyA) => stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key, json: { actions: list } });
  const act = async (ticketId: string, list: unknown[]) => {
    const response = await actions(ticketId, list);
    expect(response.status, response.text).toBe(200);
  };
  const ticket = async (ticketId: string) => {
    const response = await stack.request(`/tickets?ticketId=${ticketId}`, { key: keyA });
    expect(response.status, response.text).toBe(200);
    const [found] = (response.body as { tickets: Ticket[] }).tickets;
    return found!;
  };
  const status = async (ticketId: string) => (await ticket(ticketId)).status;

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(tenant("Conf"));
    b = await stack.applyTenant(tenant("Other"));
    keyA = a.apiKeys.main!;
    keyB = b.apiKeys.main!;
    galaxy = a.games.galaxy!.id;
  });
  afterAll(() => stack?.stop());

  describe("POST /tickets validation", () => {
    it.each([
      ["language not a language code", { language: "xx" }, "/language"],
      ["a channel other than email", { channels: ["chat"] }, "/channels/0"],
      ["no channel", { channels: [] }, "/channels"],
      ["platform not in the enum", { platform: "amiga" }, "/platform"],
      ["player without email", { metadata: { player: { name: "No mail" } } }, "/metadata/player/email"],
      ["player email not an email", { metadata: { player: { email: "not-an-email" } } }, "/metadata/player/email"],
      ["no metadata.player", { metadata: {} }, "/metadata/player"],
      ["gameId not a uuid", { gameId: "galaxy" }, "/gameId"],
    ])("refuses %s with 400 VALIDATION_ERROR naming it", async (_name, overrides, path) => {
      const response = await create(body(overrides));
      expect(response.status, response.text).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_argument", message: expect.any(String), details: { type: "VALIDATION_ERROR" } });
      expect(issuePaths(response)).toContain(path);
    });

    it("refuses missing required keys, each named itself", async () => {
      for (const key of ["gameId", "message", "language", "channels", "metadata"]) {
        const json: Record<string, unknown> = body();
        delete json[key];
        const response = await create(json);
        expect(response.status, key).toBe(400);
        expect(issuePaths(response)).toContain(`/${key}`);
      }
    });

    it("accepts every platform of the enum and defaults to not_specified", async () => {
      for (const platform of ["ios", "android", "win", "macos", "linux", "web", "playstation_4", "playstation_5", "switch", "switch_2", "xbox_series", "xbox_one", "not_specified"]) {
        expect((await create(body({ platform }))).status, platform).toBe(200);
      }
      const id = await newTicket();
      expect((await ticket(id)).metadata).toMatchObject({ platform: "not_specified" });
    });

    it("ignores unknown and wrong-typed tags and fields, but refuses an object or nested array value", async () => {
      const id = await newTicket({
        metadata: {
          player: { email: "lenient@example.com" },
          tags: ["bug", "harvest", "unknown-tag"],
          fields: { level: "high", note: "hello", paid: true, ship: "tank", unknown: 3 },
        },
      });
      const created = await ticket(id);
      // `harvest` belongs to another game of the company.
      expect(created.tags).toEqual(["bug"]);
      expect(created.fields).toEqual({ note: "hello", paid: true });
      for (const value of [{ nested: 1 }, [["a"]], [1, 2]]) {
        const response = await create(body({ metadata: { player: { email: "x@example.com" }, fields: { note: value } } }));
        expect(response.status, JSON.stringify(value)).toBe(400);
        expect(issuePaths(response).some((p) => p.startsWith("/metadata/fields/note")), response.text).toBe(true);
      }
    });

    it("gives an identified player tier 1 by default, an anonymous one no tier; status new, source API", async () => {
      const identified = await ticket(await newTicket({ metadata: { player: { id: "tier-default", email: "tier@example.com" } } }));
      expect(identified).toMatchObject({ status: "new", supportSource: "API", channels: ["email"], playerId: "tier-default", metadata: { playerTier: 1 } });
      const anonymous = await ticket(await newTicket({ metadata: { player: { email: "anon-tier@example.com" } } }));
      expect(anonymous).toMatchObject({ playerId: null, email: "anon-tier@example.com", servicePlayerId: expect.any(String) });
      expect((anonymous.metadata as Record<string, unknown>).playerTier).toBeUndefined();
    });

    it("detects duplicates by collapsed whitespace and by trigram similarity, only for open tickets of the same player and game", async () => {
      const player = { id: "dup-conf", email: "dup-conf@example.com" };
      const first = await newTicket({ message: "My   purchase of gems\tnever arrived", metadata: { player } });
      const whitespace = await create(body({ message: "my purchase of GEMS never arrived", metadata: { player } }));
      expect(whitespace.status).toBe(400);
      expect(whitespace.body).toMatchObject({ code: "failed_precondition", details: { type: "DUPLICATE_OPEN_TICKET_DETECTED", payload: { duplicateConversationId: first } } });
      const similar = await create(body({ message: "My purchase of gems never arrived!!", metadata: { player } }));
      expect(similar.status).toBe(400);
      const different = await create(body({ message: "How do I change my username?", metadata: { player } }));
      expect(different.status, different.text).toBe(200);
      // Another game, or a closed ticket, is not a duplicate.
      expect((await create(body({ gameId: a.games.farm!.id, message: "My purchase of gems never arrived", metadata: { player } }))).status).toBe(200);
      await act(first, [{ type: "resolveTicket" }]);
      await act((different.body as { ticketId: string }).ticketId, [{ type: "resolveTicket" }]);
      expect((await create(body({ message: "My purchase of gems never arrived", metadata: { player } }))).status).toBe(200);
    });
  });

  describe("players and running ids", () => {
    it("finds an anonymous player by (game, email) and an identified one by (game, id)", async () => {
      const first = await ticket(await newTicket({ message: "Where is my reward for the event?", metadata: { player: { email: "same@example.com" } } }));
      const second = await ticket(await newTicket({ message: "Cannot log in since the update", metadata: { player: { email: "same@example.com" } } }));
      expect(second.servicePlayerId).toBe(first.servicePlayerId);
      const otherGame = await ticket(await newTicket({ gameId: a.games.farm!.id, message: "Crops vanish overnight", metadata: { player: { email: "same@example.com" } } }));
      expect(otherGame.servicePlayerId).not.toBe(first.servicePlayerId);
      const byId = await ticket(await newTicket({ message: "Lost my ship after the patch", metadata: { player: { id: "known-1", email: "k1@example.com" } } }));
      const byIdAgain = await ticket(await newTicket({ message: "Cannot join my friends' guild", metadata: { player: { id: "known-1", email: "k1-new@example.com" } } }));
      expect(byIdAgain.servicePlayerId).toBe(byId.servicePlayerId);
    });

    it("counts runningId up without gaps under concurrent creation", async () => {
      const c = await stack.applyTenant(tenant("Running"));
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => create({ ...body({ gameId: c.games.galaxy!.id }), metadata: { player: { id: `r-${i}`, email: `r${i}@example.com` } } }, c.apiKeys.main!)),
      );
      expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
      expect(responses.map((r) => (r.body as { runningId: number }).runningId).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    });

    it("refuses unknown top-level keys of POST /tickets but ignores unknown metadata keys", async () => {
      const unknown = await create({ ...body(), priority: "high" });
      expect(unknown.status).toBe(400);
      expect(issuePaths(unknown)).toContain("/priority");
      const id = await newTicket({ metadata: { player: { email: "extra@example.com", avatar: "x" }, device: "pixel" } });
      expect((await ticket(id)).email).toBe("extra@example.com");
    });
  });

  describe("GET /tickets", () => {
    let key: string;
    let ids: string[];
    beforeAll(async () => {
      const c = await stack.applyTenant(tenant("Listing"));
      key = c.apiKeys.main!;
      ids = [];
      for (let i = 0; i < 3; i += 1) {
        const response = await create({ ...body({ gameId: c.games.galaxy!.id }), metadata: { player: { id: `l-${i}`, email: `l${i}@example.com` }, fields: { ship: ["fighter", "explorer"].slice(0, i + 1), level: i } } }, key);
        expect(response.status, response.text).toBe(200);
        ids.push((response.body as { ticketId: string }).ticketId);
      }
    });
    const list = async (query: string) => stack.request(`/tickets${query}`, { key });
    const listedIds = async (query: string) => {
      const response = await list(query);
      expect(response.status, response.text).toBe(200);
      return (response.body as { tickets: Ticket[] }).tickets.map((t) => t.id);
    };

    it("lists every field of a ticket, null where empty", async () => {
      const response = await list("?limit=1");
      const [first] = (response.body as { tickets: Record<string, unknown>[] }).tickets;
      expect(Object.keys(first!).sort()).toEqual([...TICKET_KEYS].sort());
      expect(first).toMatchObject({ playerName: null, resolutionType: null, csatScore: null, csatReview: null, followUpTicketId: null, reopenedFromTicketId: null });
    });

    it("accepts YYYY-MM-DD (createdBefore includes that whole day) and RFC 3339 date-times", async () => {
      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      expect(await listedIds(`?createdAfter=${today}`)).toEqual(ids);
      expect(await listedIds(`?createdBefore=${today}`)).toEqual(ids);
      expect(await listedIds(`?createdAfter=${tomorrow}`)).toEqual([]);
      const { createdAt } = await (async () => ((await list(`?ticketId=${ids[1]}`)).body as { tickets: { createdAt: string }[] }).tickets[0]!)();
      expect(await listedIds(`?createdAfter=${encodeURIComponent(createdAt)}`)).toEqual(ids.slice(1));
      expect(await listedIds(`?createdBefore=${encodeURIComponent(createdAt)}`)).toEqual(ids.slice(0, 2));
      const plusTwo = new Date(Date.parse(createdAt) + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
      expect(await listedIds(`?createdAfter=${encodeURIComponent(plusTwo)}`)).toEqual(ids.slice(1));
      for (const bad of ["yesterday", "2024-13-01", "2024-02-30", "1700000000"]) {
        const response = await list(`?createdAfter=${bad}`);
        expect(response.status, bad).toBe(400);
        expect(issuePaths(response)).toContain("/query/createdAfter");
      }
    });

    it("matches fields exactly, dropdowns containing every supplied option", async () => {
      expect(await listedIds(`?fields=${encodeURIComponent(JSON.stringify({ ship: ["fighter"] }))}`)).toEqual(ids);
      expect(await listedIds(`?fields=${encodeURIComponent(JSON.stringify({ ship: ["fighter", "explorer"] }))}`)).toEqual(ids.slice(1));
      expect(await listedIds(`?fields=${encodeURIComponent(JSON.stringify({ level: 2 }))}`)).toEqual([ids[2]]);
    });

    it("refuses malformed JSON filters and non-uuid ids, naming /query/<name>", async () => {
      for (const [query, path] of [
        ["?tags=%5B", "/query/tags"],
        ["?tags=%5B1%5D", "/query/tags"],
        ["?fields=%7B", "/query/fields"],
        ["?fields=%22x%22", "/query/fields"],
        ["?status=%5B", "/query/status"],
        ["?status=%22new%22", "/query/status"],
        ["?ticketId=123", "/query/ticketId"],
        ["?limit=abc", "/query/limit"],
        ["?order=up", "/query/order"],
      ]) {
        const response = await list(query!);
        expect(response.status, query).toBe(400);
        expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
        expect(issuePaths(response), query).toContain(path);
      }
    });

    it("filters by playerId, email, gameId, several statuses and every tag", async () => {
      expect(await listedIds("?playerId=l-1")).toEqual([ids[1]]);
      expect(await listedIds("?email=l2%40example.com")).toEqual([ids[2]]);
      expect(await listedIds(`?status=${encodeURIComponent('["new","closed"]')}`)).toEqual(ids);
      expect(await listedIds(`?status=${encodeURIComponent('["closed"]')}`)).toEqual([]);
      expect(await listedIds(`?tags=${encodeURIComponent("[]")}`)).toEqual(ids);
      expect(await listedIds(`?gameId=${a.games.galaxy!.id}`)).toEqual([]);
    });

    it("accepts limit 1 and 1000; a desc cursor refused with asc", async () => {
      expect(await listedIds("?limit=1")).toEqual([ids[0]]);
      expect(await listedIds("?limit=1000")).toEqual(ids);
      const desc = (await list("?order=desc&limit=1")).body as { tickets: Ticket[]; pagination: { cursor: string } };
      expect(desc.tickets[0]!.id).toBe(ids[2]);
      const asc = await list(`?order=asc&cursor=${encodeURIComponent(desc.pagination.cursor)}`);
      expect(asc.status).toBe(400);
      expect(issuePaths(asc)).toContain("/query/cursor");
      const next = (await list(`?order=desc&limit=5&cursor=${encodeURIComponent(desc.pagination.cursor)}`)).body as { tickets: Ticket[]; pagination: { cursor: string | null } };
      expect(next.tickets.map((t) => t.id)).toEqual([ids[1], ids[0]]);
      expect(next.pagination.cursor).toBeNull();
    });
  });

  describe("ticket states through actions", () => {
    const alice = () => a.users.alice!;

    it("assignTicket: new/unassigned/assigned -> assigned; waiting and on_hold keep their status", async () => {
      const id = await newTicket();
      await act(id, [{ type: "assignTicket", assigneeId: alice() }]);
      expect(await status(id)).toBe("assigned");
      await act(id, [{ type: "unassignTicket" }]);
      expect(await status(id)).toBe("unassigned");
      await act(id, [{ type: "assignTicket", assigneeId: alice() }]);
      expect(await status(id)).toBe("assigned");
      await act(id, [{ type: "setStatus", status: "waiting" }, { type: "unassignTicket" }]);
      expect(await status(id)).toBe("waiting");
      await act(id, [{ type: "assignTicket", assigneeId: alice() }]);
      expect(await status(id)).toBe("waiting");
      await act(id, [{ type: "setOnHold", onHold: true }]);
      expect(await status(id)).toBe("on_hold");
      await act(id, [{ type: "unassignTicket" }]);
      expect(await status(id)).toBe("on_hold");
      await act(id, [{ type: "assignTicket", assigneeId: alice() }]);
      expect(await status(id)).toBe("on_hold");
      await act(id, [{ type: "setOnHold", onHold: false }]);
      expect(await status(id)).toBe("assigned");
    });

    it("unassignTicket on a new ticket keeps it new (only assigned becomes unassigned)", async () => {
      const id = await newTicket();
      await act(id, [{ type: "unassignTicket" }]);
      expect(await status(id)).toBe("new");
    });

    it("refuses setFields with an undefined key, a wrong-typed value or an unknown option, and setPlayerInfo with a bad tier", async () => {
      const id = await newTicket();
      for (const [action, path] of [
        [{ type: "setFields", fields: { level: "high" } }, "/actions/0/fields/level"],
        [{ type: "setFields", fields: { ship: ["tank"] } }, "/actions/0/fields/ship"],
        [{ type: "setFields", fields: { paid: "yes" } }, "/actions/0/fields/paid"],
        [{ type: "setFields", fields: { nope: 1 } }, "/actions/0/fields/nope"],
        [{ type: "removeTags", tagNames: ["harvest"] }, "/actions/0/tagNames/0"],
        [{ type: "setPlayerInfo", player: { tier: 4 } }, "/actions/0/player/tier"],
        [{ type: "sendMessage", message: "" }, "/actions/0/message"],
        [{ type: "addTags", tagNames: [] }, "/actions/0/tagNames"],
      ] as const) {
        const response = await actions(id, [action]);
        expect(response.status, JSON.stringify(action)).toBe(400);
        expect(issuePaths(response).some((p) => p.startsWith(path)), `${JSON.stringify(action)} ${response.text}`).toBe(true);
      }
    });

    it("records the actions of one request as events in their order, in the ticket's language", async () => {
      const id = await newTicket({ language: "fr", message: "Bonjour, mon vaisseau a disparu" });
      await act(id, [
        { type: "sendMessage", message: "one" },
        { type: "addPrivateNote", message: "two" },
        { type: "sendMessage", message: "three", userId: a.users.alice },
        { type: "addPrivateNote", message: "four" },
      ]);
      const { events } = (await stack.request(`/tickets/${id}/events`, { key: keyA })).body as { events: { type: string; message?: string; language?: string }[] };
      expect(events.map((e) => [e.type, e.message, e.language])).toEqual([
        ["PLAYER_MESSAGE", "Bonjour, mon vaisseau a disparu", "fr"],
        ["AGENT_MESSAGE", "one", "fr"],
        ["PRIVATE_NOTE", "two", undefined],
        ["AGENT_MESSAGE", "three", "fr"],
        ["PRIVATE_NOTE", "four", undefined],
      ]);
    });

    it("setStatus assigned without an assignee gives unassigned, with one assigned", async () => {
      const id = await newTicket();
      await act(id, [{ type: "setStatus", status: "assigned" }]);
      expect(await status(id)).toBe("unassigned");
      await act(id, [{ type: "setStatus", status: "waiting" }]);
      await act(id, [{ type: "assignTicket", assigneeId: alice() }]);
      expect(await status(id)).toBe("waiting");
      await act(id, [{ type: "setStatus", status: "assigned" }]);
      expect(await status(id)).toBe("assigned");
    });

    it("setOnHold false without an assignee leaves hold to unassigned", async () => {
      const id = await newTicket();
      await act(id, [{ type: "setOnHold", onHold: true }]);
      expect(await status(id)).toBe("on_hold");
      await act(id, [{ type: "setOnHold", onHold: false }]);
      expect(await status(id)).toBe("unassigned");
    });

    it("sendMessage on a new ticket moves it to unassigned, or assigned with an assignee", async () => {
      const plain = await newTicket();
      await act(plain, [{ type: "sendMessage", message: "Hello" }]);
      expect(await status(plain)).toBe("unassigned");
      const withAssignee = await newTicket();
      await act(withAssignee, [{ type: "assignTicket", assigneeId: alice() }, { type: "sendMessage", message: "Hello", userId: alice() }]);
      expect(await status(withAssignee)).toBe("assigned");
    });

    it("resolveTicket and rejectTicket close with resolved/rejected and an END event", async () => {
      for (const [type, resolutionType] of [["resolveTicket", "resolved"], ["rejectTicket", "rejected"]] as const) {
        const id = await newTicket();
        await act(id, [{ type }]);
        expect(await ticket(id)).toMatchObject({ status: "closed", resolutionType });
        const { events } = (await stack.request(`/tickets/${id}/events`, { key: keyA })).body as { events: Record<string, unknown>[] };
        expect(events.at(-1)).toEqual({ id: expect.any(String), type: "END", createdAt: expect.any(String), resolutionType });
      }
    });

    it("on a closed ticket: 409 conflict for status, message, resolve and reject; assign/unassign change the assignee only", async () => {
      const id = await newTicket();
      await act(id, [{ type: "resolveTicket" }]);
      for (const action of [
        { type: "setStatus", status: "waiting" },
        { type: "setStatus", status: "assigned" },
        { type: "setOnHold", onHold: true },
        { type: "setOnHold", onHold: false },
        { type: "sendMessage", message: "late" },
        { type: "resolveTicket" },
        { type: "rejectTicket" },
      ]) {
        const response = await actions(id, [action]);
        expect(response.status, JSON.stringify(action)).toBe(409);
        expect(response.body).toMatchObject({ code: "conflict", message: expect.any(String) });
      }
      await act(id, [{ type: "assignTicket", assigneeId: alice() }]);
      await act(id, [{ type: "unassignTicket" }]);
      await act(id, [{ type: "addPrivateNote", message: "after close" }, { type: "addTags", tagNames: ["bug"] }]);
      expect(await ticket(id)).toMatchObject({ status: "closed", resolutionType: "resolved", tags: ["bug"] });
    });

    it("refuses a userId or assigneeId without access to the ticket's game (or unknown) naming the action index", async () => {
      const id = await newTicket();
      const bob = a.users.bob!;
      for (const [list, path] of [
        [[{ type: "addPrivateNote", message: "x" }, { type: "assignTicket", assigneeId: bob }], "/actions/1/assigneeId"],
        [[{ type: "addPrivateNote", message: "x", userId: bob }], "/actions/0/userId"],
        [[{ type: "addPrivateNote", message: "x" }, { type: "addPrivateNote", message: "y" }, { type: "assignTicket", assigneeId: "00000000-0000-4000-8000-000000000000" }], "/actions/2/assigneeId"],
        [[{ type: "assignTicket", assigneeId: b.users.alice }], "/actions/0/assigneeId"],
        [[{ type: "assignTicket", assigneeId: "alice" }], "/actions/0/assigneeId"],
      ] as const) {
        const response = await actions(id, list as unknown as unknown[]);
        expect(response.status, JSON.stringify(list)).toBe(400);
        expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
        expect(issuePaths(response)).toContain(path);
      }
      expect(await status(id)).toBe("new");
    });

    it("every action updates lastActivityAt; setPlayerInfo updates playerName", async () => {
      const id = await newTicket({ metadata: { player: { id: "renamed-player", name: "Before", email: "renamed@example.com" } } });
      let before = (await ticket(id)).lastActivityAt as string;
      for (const action of [
        { type: "addPrivateNote", message: "note" },
        { type: "addTags", tagNames: ["crash"] },
        { type: "removeTags", tagNames: ["crash"] },
        { type: "setFields", fields: { level: 3 } },
        { type: "setPlayerInfo", player: { name: "After" } },
      ]) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await act(id, [action]);
        const after = (await ticket(id)).lastActivityAt as string;
        expect(Date.parse(after), JSON.stringify(action)).toBeGreaterThan(Date.parse(before));
        before = after;
      }
      expect(await ticket(id)).toMatchObject({ playerName: "After", metadata: { playerTier: 1 } });
    });

    it("adding a tag the ticket has and removing one it lacks is not an error; setPlayerInfo refuses userId", async () => {
      const id = await newTicket();
      await act(id, [{ type: "addTags", tagNames: ["bug"] }, { type: "addTags", tagNames: ["bug"] }, { type: "removeTags", tagNames: ["crash"] }]);
      expect((await ticket(id)).tags).toEqual(["bug"]);
      const withUser = await actions(id, [{ type: "setPlayerInfo", player: { name: "X" }, userId: a.users.alice }]);
      expect(withUser.status).toBe(400);
      const empty = await actions(id, []);
      expect(empty.status).toBe(400);
      expect(issuePaths(empty)).toContain("/actions");
      const setStatusOther = await actions(id, [{ type: "setStatus", status: "closed" }]);
      expect(setStatusOther.status).toBe(400);
      expect(issuePaths(setStatusOther)).toContain("/actions/0/status");
    });

    it("a ticket id that is not a uuid is 400 /path/ticketId; an unknown one 404", async () => {
      const bad = await actions("not-a-uuid", [{ type: "resolveTicket" }]);
      expect(bad.status).toBe(400);
      expect(issuePaths(bad)).toContain("/path/ticketId");
      for (const path of ["/tickets/not-a-uuid/events", "/tickets/not-a-uuid/breadcrumbs"]) {
        const response = await stack.request(path, { key: keyA });
        expect(response.status, path).toBe(400);
        expect(issuePaths(response)).toContain("/path/ticketId");
      }
      const unknown = "00000000-0000-4000-8000-000000000000";
      for (const response of [
        await actions(unknown, [{ type: "resolveTicket" }]),
        await stack.request(`/tickets/${unknown}/events`, { key: keyA }),
        await stack.request(`/tickets/${unknown}/breadcrumbs`, { key: keyA }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body).toMatchObject({ code: "not_found", message: expect.any(String) });
      }
    });
  });

  describe("errors and headers", () => {
    it("carries x-request-id and a {code, message} body on 400, 403, 404, 405, 409 and 413 answers", async () => {
      const closed = await newTicket();
      await act(closed, [{ type: "rejectTicket" }]);
      const responses: StackResponse[] = [
        await stack.request("/tickets?limit=0", { key: keyA }),
        await stack.request("/tickets"),
        await stack.request("/tickets", { key: "psk_nope" }),
        await stack.request("/nope", { key: keyA }),
        await stack.request("/games", { method: "DELETE", key: keyA }),
        await actions(closed, [{ type: "resolveTicket" }]),
        await stack.request("/tickets", { method: "POST", key: keyA, body: JSON.stringify({ message: "x".repeat(1_100_000) }), headers: { "content-type": "application/json" } }),
      ];
      expect(responses.map((r) => r.status)).toEqual([400, 403, 403, 404, 405, 409, 413]);
      for (const response of responses) {
        expect(response.headers.get("x-request-id"), String(response.status)).toBeTruthy();
        expect(response.headers.get("content-type")).toMatch(/application\/json/);
        expect(response.body).toMatchObject({ code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) });
      }
      expect((responses[1]!.body as { code: string }).code).toBe("unauthenticated");
      expect(responses[2]!.body).toEqual(responses[1]!.body);
    });

    it("refuses U+0000 (which no database text can hold) with 400 naming the value, never 500", async () => {
      const id = await newTicket();
      const cases: [Promise<StackResponse>, string][] = [
        [create(body({ message: "a\u0000b" })), "/message"],
        [create(body({ metadata: { player: { id: "n\u0000", email: "nul@example.com" }, tags: ["bug\u0000"] } })), "/metadata/player/id"],
        [stack.request("/tickets?playerId=%00", { key: keyA }), "/query/playerId"],
        [stack.request(`/tickets?tags=${encodeURIComponent('["bug\\u0000"]')}`, { key: keyA }), "/query/tags"],
        [stack.request(`/tickets?fields=${encodeURIComponent('{"note":"\\u0000"}')}`, { key: keyA }), "/query/fields"],
        [actions(id, [{ type: "addPrivateNote", message: "ok" }, { type: "sendMessage", message: "\u0000" }]), "/actions/1/message"],
        [actions(id, [{ type: "setFields", fields: { note: "x\u0000" } }]), "/actions/0/fields/note"],
        [stack.request("/announcements", { method: "PUT", key: keyA, json: { shortContent: { en: "a\u0000" }, longContent: null, gameId: null } }), "/shortContent/en"],
        [stack.request("/support/sessions", { method: "POST", json: { token: a.games.galaxy!.environments["galaxy-prod"]!.token, player: { name: "\u0000" } } }), "/player/name"],
      ];
      for (const [pending, path] of cases) {
        const response = await pending;
        expect(response.status, `${path} ${response.text}`).toBe(400);
        expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
        expect(issuePaths(response)).toContain(path);
      }
      expect((await ticket(id)).status).toBe("new");
    });

    it("answers another company's ticket like an unknown one (404, same body)", async () => {
      const id = await newTicket();
      const unknown = "00000000-0000-4000-8000-000000000000";
      const other = await stack.request(`/tickets/${id}/events`, { key: keyB });
      const missing = await stack.request(`/tickets/${unknown}/events`, { key: keyB });
      expect(other.status).toBe(404);
      expect(other.body).toEqual(missing.body);
      expect(((await stack.request(`/tickets?ticketId=${id}`, { key: keyB })).body as { tickets: unknown[] }).tickets).toEqual([]);
      const servicePlayerId = (await ticket(id)).servicePlayerId as string;
      const deletion = await stack.request("/player/schedule-deletion", { method: "POST", key: keyB, json: { servicePlayerId } });
      expect(deletion.status).toBe(404);
      expect(deletion.body).toMatchObject({ code: "not_found" });
    });

    it("GET /games, /tags and /fields answer exactly their documented fields", async () => {
      const games = (await stack.request("/games", { key: keyA })).body as { games: Record<string, unknown>[] };
      expect(games.games.map((g) => Object.keys(g).sort())).toEqual(games.games.map(() => ["createdAt", "id", "languages", "name", "slug", "updatedAt"]));
      const tags = (await stack.request("/tags", { key: keyA })).body as { tags: Record<string, unknown>[] };
      expect(tags.tags.find((t) => t.name === "crash")).toEqual({ gameId: galaxy, name: "crash", description: null, isAiTag: false, isSkill: false, createdAt: expect.any(String), updatedAt: expect.any(String) });
      const fields = (await stack.request("/fields", { key: keyA })).body as { fields: Record<string, unknown>[] };
      expect(fields.fields.find((f) => f.key === "paid")).toEqual({ gameId: null, name: "Paid", description: null, type: "boolean", key: "paid", isAiField: false });
    });
  });
});
