// The player side through the REST API of the real stack: a web support session's code
// is the player's credential. One whole conversation (open, agent reply, waiting, player
// answer, private notes hidden, resolve, CSAT once, breadcrumbs with the clock offset,
// attachments), ownership (another player's or game's ticket is a 404) and the session
// check (missing, unknown, expired: 403), the abuse limits per session and per client
// address (429 with retry-after). Every answer is checked against the OpenAPI
// document by stack.request.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, sql, type Kysely } from "@support/db";
import { startStack, type RequestOptions, type Stack, type StackResponse, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

const SESSION_REQUIRED = { code: "unauthenticated", message: "A valid session code is required" };

interface PlayerTicket {
  id: string;
  runningId: number;
  status: string;
  resolutionType: string | null;
  csatScore: number | null;
}

interface ApiTicket {
  id: string;
  gameEnvironmentId: string;
  status: string;
  supportSource: string;
  channels: string[];
  language: string;
  playerId: string | null;
  email: string | null;
  tags: string[];
  fields: Record<string, unknown>;
  csatScore: number | null;
  csatReview: string | null;
  lastActivityAt: string | null;
}

describe("the player side through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let db: Kysely<unknown>;
  let key: string;
  let code: string;

  beforeAll(async () => {
    stack = await startStack();
    // A collector definition for the answers below (answers are checked against it).
    const purchase = {
      ref: "purchase", title: "Purchase",
      fields: [
        { key: "order", label: "Order number", type: "TEXT" },
        { key: "store", label: "Store", type: "DROPDOWN", options: ["app_store", "play_store"] },
        { key: "agree", label: "Agree", type: "CHECKBOX" },
        { key: "receipt", label: "Receipt", type: "FILE" },
      ],
    };
    a = await stack.applyTenant({
      ...tenantA,
      games: tenantA.games.map((game) => (game.ref === "galaxy" ? { ...game, collectors: [purchase] } : game)),
      users: [{ ref: "mia", name: "Mia Chen", email: "mia.chen@example.com", role: "agent", displayName: "Mia from Support", games: ["galaxy"] }],
    });
    key = a.apiKeys.main!;
    db = createDb({ url: stack.infra.databaseUrl, schema: "players", maxConnections: 2 });
    code = await session({ language: "fr", player: { id: "p-1", name: "Ada", email: "ada@example.com" }, tags: ["bug"], fields: { level: 7 } });
  });
  afterAll(async () => {
    await db?.destroy();
    await stack?.stop();
  });

  async function session(body: Record<string, unknown>, game = "galaxy", environment = "galaxy-production"): Promise<string> {
    const token = a.games[game]!.environments[environment]!.token;
    const response = await stack.request("/support/sessions", { method: "POST", json: { token, ...body } });
    expect(response.status, response.text).toBe(200);
    return (response.body as { sessionCode: string }).sessionCode;
  }

  const as = (sessionCode: string, path: string, options: RequestOptions = {}): Promise<StackResponse> =>
    stack.request(path, { ...options, headers: { ...(options.headers as Record<string, string> | undefined), authorization: `Session ${sessionCode}` } });

  const apiTicket = async (ticketId: string): Promise<ApiTicket> => {
    const response = await stack.request(`/tickets?ticketId=${ticketId}`, { key });
    expect(response.status).toBe(200);
    const [ticket] = (response.body as { tickets: ApiTicket[] }).tickets;
    return ticket!;
  };

  const actions = (ticketId: string, list: unknown[]) => stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key, json: { actions: list } });

  const open = async (sessionCode: string, message: string): Promise<string> => {
    const response = await as(sessionCode, "/player-api/tickets", { method: "POST", json: { message } });
    expect(response.status, response.text).toBe(200);
    return (response.body as { ticketId: string }).ticketId;
  };

  describe("one whole conversation", () => {
    let ticketId: string;

    it("opens a chat ticket from the session (WEB, chat, the session's language, player, tags and fields)", async () => {
      const response = await as(code, "/player-api/tickets", { method: "POST", json: { message: "My ship vanished" } });
      expect(response.status).toBe(200);
      const body = response.body as { ticketId: string; runningId: number };
      expect(body.runningId).toBeGreaterThanOrEqual(1);
      ticketId = body.ticketId;
      expect(await apiTicket(ticketId)).toMatchObject({
        status: "new", supportSource: "WEB", channels: ["chat"], language: "fr", playerId: "p-1", email: "ada@example.com",
        tags: ["bug"], fields: { level: 7 }, gameEnvironmentId: a.games.galaxy!.environments["galaxy-production"]!.id,
      });
    });

    it("opens the ticket in the session's game environment", async () => {
      const staging = await session({ player: { id: "p-1", email: "ada@example.com" } }, "galaxy", "galaxy-staging");
      const ticket = await apiTicket(await open(staging, "Staging is broken"));
      expect(ticket.gameEnvironmentId).toBe(a.games.galaxy!.environments["galaxy-staging"]!.id);
      expect(ticket.language).toBe("en");
    });

    it("lists the player's tickets", async () => {
      const response = await as(code, "/player-api/tickets");
      expect(response.status).toBe(200);
      const tickets = (response.body as { tickets: PlayerTicket[] }).tickets;
      expect(tickets.map((ticket) => ticket.id)).toContain(ticketId);
      expect(tickets.find((ticket) => ticket.id === ticketId)).toMatchObject({ status: "new", resolutionType: null, csatScore: null });
    });

    it("keeps a new ticket new on a player message", async () => {
      const response = await as(code, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "Still gone" } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: "new" });
    });

    it("moves a waiting ticket back to work on a player message and updates its activity", async () => {
      const replied = await actions(ticketId, [
        { type: "sendMessage", message: "Which sector were you in?" },
        { type: "addPrivateNote", message: "Probably the warp bug" },
        { type: "setStatus", status: "waiting" },
      ]);
      expect(replied.status, replied.text).toBe(200);
      const waiting = await apiTicket(ticketId);
      expect(waiting.status).toBe("waiting");

      const response = await as(code, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "Sector 7" } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: "unassigned" });
      const after = await apiTicket(ticketId);
      expect(after.status).toBe("unassigned");
      expect(Date.parse(after.lastActivityAt!)).toBeGreaterThanOrEqual(Date.parse(waiting.lastActivityAt!));
    });

    it("shows the conversation without private notes", async () => {
      const response = await as(code, `/player-api/tickets/${ticketId}/events`);
      expect(response.status).toBe(200);
      const events = (response.body as { events: { type: string; message?: string }[] }).events;
      expect(events.map((event) => [event.type, event.message])).toEqual([
        ["PLAYER_MESSAGE", "My ship vanished"],
        ["PLAYER_MESSAGE", "Still gone"],
        ["AGENT_MESSAGE", "Which sector were you in?"],
        ["PLAYER_MESSAGE", "Sector 7"],
      ]);
      // The API key still sees the note.
      const agentView = await stack.request(`/tickets/${ticketId}/events`, { key });
      expect((agentView.body as { events: { type: string }[] }).events.map((event) => event.type)).toContain("PRIVATE_NOTE");
    });

    it("refuses CSAT on an open ticket (409)", async () => {
      const response = await as(code, `/player-api/tickets/${ticketId}/csat`, { method: "POST", json: { score: 5 } });
      expect(response.status).toBe(409);
    });

    it("refuses a message on a closed ticket (409), then takes the CSAT of a resolved ticket once", async () => {
      expect((await actions(ticketId, [{ type: "resolveTicket" }])).status).toBe(200);
      const late = await as(code, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "Thanks!" } });
      expect(late.status).toBe(409);
      expect((late.body as { code: string }).code).toBe("conflict");

      const bad = await as(code, `/player-api/tickets/${ticketId}/csat`, { method: "POST", json: { score: 6 } });
      expect(bad.status).toBe(400);
      const rated = await as(code, `/player-api/tickets/${ticketId}/csat`, { method: "POST", json: { score: 4, review: "Quick help" } });
      expect(rated.status, rated.text).toBe(200);
      expect(rated.body).toEqual({ success: true });
      const again = await as(code, `/player-api/tickets/${ticketId}/csat`, { method: "POST", json: { score: 1 } });
      expect(again.status).toBe(409);

      expect(await apiTicket(ticketId)).toMatchObject({ status: "closed", csatScore: 4, csatReview: "Quick help" });
      const events = (await as(code, `/player-api/tickets/${ticketId}/events`)).body as { events: { type: string; score?: number }[] };
      expect(events.events.filter((event) => event.type === "CSAT")).toEqual([expect.objectContaining({ score: 4, review: "Quick help" })]);
      const listed = ((await as(code, "/player-api/tickets")).body as { tickets: PlayerTicket[] }).tickets.find((ticket) => ticket.id === ticketId);
      expect(listed).toMatchObject({ status: "closed", resolutionType: "resolved", csatScore: 4 });
    });

    it("stores breadcrumbs with the client's clock offset (also on a closed ticket)", async () => {
      const clientSentAt = new Date(Date.now() + 60_000).toISOString();
      const response = await as(code, `/player-api/tickets/${ticketId}/breadcrumbs`, {
        method: "POST",
        json: { breadcrumbs: [{ message: "Opened the map", clientOccurredAt: "2026-11-20T10:00:00.000Z" }, { message: "Warped", clientOccurredAt: "2026-11-20T10:00:01.500Z" }], clientSentAt },
      });
      expect(response.status, response.text).toBe(200);
      const { added, clientClockOffsetMs } = response.body as { added: number; clientClockOffsetMs: number };
      expect(added).toBe(2);
      expect(clientClockOffsetMs).toBeGreaterThan(55_000);
      expect(clientClockOffsetMs).toBeLessThanOrEqual(60_000);

      const stored = await stack.request(`/tickets/${ticketId}/breadcrumbs`, { key });
      expect(stored.body).toEqual({
        breadcrumbs: [
          { message: "Opened the map", clientOccurredAt: "2026-11-20T10:00:00.000Z" },
          { message: "Warped", clientOccurredAt: "2026-11-20T10:00:01.500Z" },
        ],
        clientClockOffsetMs,
      });

      const without = await as(code, `/player-api/tickets/${ticketId}/breadcrumbs`, {
        method: "POST", json: { breadcrumbs: [{ message: "Closed the map", clientOccurredAt: "2026-11-20T10:00:02.000Z" }] },
      });
      expect(without.status).toBe(200);
      expect(without.body).toEqual({ added: 1, clientClockOffsetMs: null });
    });

    it("gives a rejected ticket no survey (409)", async () => {
      const rejected = await open(code, "Give me free credits");
      expect((await actions(rejected, [{ type: "rejectTicket" }])).status).toBe(200);
      const response = await as(code, `/player-api/tickets/${rejected}/csat`, { method: "POST", json: { score: 3 } });
      expect(response.status).toBe(409);
    });

    it("hides the ticket from another player and from the same player in another game (404)", async () => {
      const other = await session({ player: { id: "p-2", email: "bob@example.com" } });
      const elsewhere = await session({ player: { id: "p-1", email: "ada@example.com" } }, "farm", "farm-production");
      for (const sessionCode of [other, elsewhere]) {
        expect((await as(sessionCode, `/player-api/tickets/${ticketId}/events`)).status).toBe(404);
        expect((await as(sessionCode, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "hi" } })).status).toBe(404);
        expect((await as(sessionCode, `/player-api/tickets/${ticketId}/csat`, { method: "POST", json: { score: 1 } })).status).toBe(404);
        const crumbs = await as(sessionCode, `/player-api/tickets/${ticketId}/breadcrumbs`, {
          method: "POST", json: { breadcrumbs: [{ message: "x", clientOccurredAt: "2026-11-20T10:00:00.000Z" }] },
        });
        expect(crumbs.status).toBe(404);
        expect((await as(sessionCode, `/player-api/tickets/${ticketId}/read`, { method: "POST" })).status).toBe(404);
        const listed = (await as(sessionCode, "/player-api/tickets")).body as { tickets: PlayerTicket[] };
        expect(listed.tickets.map((ticket) => ticket.id)).not.toContain(ticketId);
      }
      expect((await as(other, "/player-api/tickets/00000000-0000-4000-8000-000000000000/events")).status).toBe(404);
    });
  });

  it("lists each conversation's last message and the agent messages the player has not read, until the player reads them", async () => {
    const reader = await session({ player: { id: "reader-1" } });
    const ticketId = await open(reader, "Where is my ship?");
    type Listed = { id: string; unread: number; lastMessage: { from: string; preview: string; hasAttachments: boolean; createdAt: string } | null };
    const listed = async (sessionCode: string) => ((await as(sessionCode, "/player-api/tickets")).body as { tickets: Listed[] }).tickets.find((ticket) => ticket.id === ticketId)!;
    expect(await listed(reader)).toMatchObject({ unread: 0, lastMessage: { from: "player", preview: "Where is my ship?", hasAttachments: false } });

    // Agent messages are unread; private notes neither count nor show.
    expect((await actions(ticketId, [{ type: "sendMessage", message: "Found it?" }, { type: "sendMessage", message: `In hangar ${"7".repeat(300)}` }, { type: "addPrivateNote", message: "secret note" }])).status).toBe(200);
    const afterReplies = await listed(reader);
    expect(afterReplies.unread).toBe(2);
    expect(afterReplies.lastMessage).toMatchObject({ from: "agent", hasAttachments: false });
    expect([...afterReplies.lastMessage!.preview]).toHaveLength(140);
    expect(afterReplies.lastMessage!.preview.startsWith("In hangar 777")).toBe(true);
    expect(afterReplies.lastMessage!.preview.endsWith("…")).toBe(true);

    // Read; a later answer is unread again.
    const read = await as(reader, `/player-api/tickets/${ticketId}/read`, { method: "POST" });
    expect(read.status, read.text).toBe(204);
    expect(read.text).toBe("");
    expect((await listed(reader)).unread).toBe(0);
    expect((await actions(ticketId, [{ type: "sendMessage", message: "Hello again" }])).status).toBe(200);
    expect(await listed(reader)).toMatchObject({ unread: 1, lastMessage: { from: "agent", preview: "Hello again" } });
    expect((await as(reader, `/player-api/tickets/${ticketId}/read`, { method: "POST" })).status).toBe(204);
    expect((await listed(reader)).unread).toBe(0);

    // Not a uuid: 400; no session: 403.
    expect((await as(reader, "/player-api/tickets/not-a-ticket/read", { method: "POST" })).status).toBe(400);
    expect((await stack.request(`/player-api/tickets/${ticketId}/read`, { method: "POST" })).status).toBe(403);
  });

  it("names an agent's message by its writer's display name, never a message an API key sent", async () => {
    const asker = await session({ player: { id: "named-1" } });
    const ticketId = await open(asker, "Who is answering?");
    const sent = await actions(ticketId, [{ type: "sendMessage", message: "I am.", userId: a.users.mia }, { type: "sendMessage", message: "So is the studio's backend." }]);
    expect(sent.status, sent.text).toBe(200);
    const events = ((await as(asker, `/player-api/tickets/${ticketId}/events`)).body as { events: { type: string; message?: string; agent?: unknown }[] }).events;
    expect(events.filter((event) => event.type === "AGENT_MESSAGE").map((event) => [event.message, event.agent])).toEqual([
      ["I am.", { displayName: "Mia from Support" }],
      ["So is the studio's backend.", undefined],
    ]);
    expect(JSON.stringify(events)).not.toContain("Mia Chen");
    expect(JSON.stringify(events)).not.toContain("mia.chen@example.com");
  });

  it("uploads an attachment for the session's game and sends it in a message", async () => {
    const bytes = randomBytes(2000);
    const response = await as(code, "/player-api/attachments", { method: "POST", json: { fileName: "map.png", fileType: "image/png", fileSize: bytes.length } });
    expect(response.status, response.text).toBe(200);
    const instruction = response.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
    const put = await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes });
    expect(put.status, await put.text()).toBe(200);

    const ticketId = await open(code, "Here is a screenshot");
    const sent = await as(code, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "See attached", attachments: [instruction.attachmentId] } });
    expect(sent.status, sent.text).toBe(200);
    const events = ((await as(code, `/player-api/tickets/${ticketId}/events`)).body as { events: { message: string; attachments: { id: string }[] }[] }).events;
    expect(events.at(-1)).toMatchObject({ message: "See attached", attachments: [{ id: instruction.attachmentId }] });
  });

  it("takes a collector's answers (COLLECTOR_RESULT), also with a file, like a player's answer", async () => {
    const bytes = randomBytes(1000);
    const upload = await as(code, "/player-api/attachments", { method: "POST", json: { fileName: "receipt.pdf", fileType: "application/pdf", fileSize: bytes.length } });
    const instruction = upload.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
    expect((await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes })).status).toBe(200);

    const ticketId = await open(code, "I was charged twice");
    expect((await actions(ticketId, [{ type: "sendMessage", message: "Please fill in the form" }, { type: "setStatus", status: "waiting" }])).status).toBe(200);
    const collectorId = a.games.galaxy!.collectors.purchase!;
    const fields = [
      { key: "order", label: "Order number", type: "TEXT", value: "A-1234" },
      { key: "store", label: "Store", type: "DROPDOWN", value: ["app_store"] },
      { key: "agree", label: "Agree", type: "CHECKBOX", value: true },
      { key: "receipt", label: "Receipt", type: "FILE", attachments: [instruction.attachmentId] },
    ];
    const bad = await as(code, `/player-api/tickets/${ticketId}/collector-results`, {
      method: "POST", json: { collectorId, title: "Purchase", fields: [{ label: "Order", type: "TEXT", value: ["not", "text"] }] },
    });
    expect(bad.status).toBe(400);
    const response = await as(code, `/player-api/tickets/${ticketId}/collector-results`, { method: "POST", json: { collectorId, title: "Purchase", fields } });
    expect(response.status, response.text).toBe(200);
    const { resultId, status } = response.body as { resultId: string; status: string };
    expect(status).toBe("unassigned");

    const events = ((await stack.request(`/tickets/${ticketId}/events`, { key })).body as { events: { type: string }[] }).events;
    expect(events.at(-1)).toEqual(expect.objectContaining({
      type: "COLLECTOR_RESULT", collectorId, resultId, title: "Purchase",
      fields: [
        { key: "order", label: "Order number", type: "TEXT", value: "A-1234" },
        { key: "store", label: "Store", type: "DROPDOWN", value: ["app_store"] },
        { key: "agree", label: "Agree", type: "CHECKBOX", value: true },
        { key: "receipt", label: "Receipt", type: "FILE", attachments: [{ id: instruction.attachmentId }] },
      ],
    }));

    const other = await session({ player: { id: "p-9", email: "zed@example.com" } });
    expect((await as(other, `/player-api/tickets/${ticketId}/collector-results`, { method: "POST", json: { collectorId, title: "x", fields: fields.slice(0, 1) } })).status).toBe(404);
    expect((await actions(ticketId, [{ type: "resolveTicket" }])).status).toBe(200);
    expect((await as(code, `/player-api/tickets/${ticketId}/collector-results`, { method: "POST", json: { collectorId, title: "x", fields: fields.slice(0, 1) } })).status).toBe(409);
  });

  it("refuses a session without a player id or email when opening a ticket (400)", async () => {
    const anonymous = await session({});
    const response = await as(anonymous, "/player-api/tickets", { method: "POST", json: { message: "Help" } });
    expect(response.status).toBe(400);
    expect(((await as(anonymous, "/player-api/tickets")).body as { tickets: unknown[] }).tickets).toEqual([]);
  });

  describe("the session check", () => {
    it("answers 403 without a session code, with another scheme, an API key or an unknown code", async () => {
      for (const authorization of [undefined, `Bearer ${key}`, "Session not-a-real-session-code-0000000000000", "Session"]) {
        const response = await stack.request("/player-api/tickets", { headers: authorization ? { authorization } : {} });
        expect(response.status, authorization).toBe(403);
        expect(response.body).toEqual(SESSION_REQUIRED);
      }
      const post = await stack.request("/player-api/tickets", { method: "POST", json: { message: "hi" } });
      expect(post.status).toBe(403);
    });

    it("checks the session before the body (403, not 400)", async () => {
      const response = await stack.request("/player-api/tickets", { method: "POST", json: { nope: true } });
      expect(response.status).toBe(403);
    });

    it("answers 403 for an expired session", async () => {
      const expired = await session({ player: { id: "p-3", email: "cy@example.com" } });
      const codeHash = createHash("sha256").update(expired).digest("hex");
      await sql`update players.support_sessions set expires_at = now() - interval '1 second' where code_hash = ${codeHash}`.execute(db);
      const response = await as(expired, "/player-api/tickets");
      expect(response.status).toBe(403);
      expect(response.body).toEqual(SESSION_REQUIRED);
    });
  });

  describe("the abuse limits (shared counters of players.ConsumeRateLimit)", () => {
    // An hour-long window keeps the counts of one test in one window.
    const WINDOW = { PUBLIC_RATE_LIMIT_WINDOW_SECONDS: 3_600, TRUST_PROXY: "true" };
    let octet = 0;
    const from = () => ({ "x-forwarded-for": `198.51.100.${++octet}, 10.0.0.1` });

    function expectRateLimited(response: StackResponse, what: RegExp) {
      expect(response.status, response.text).toBe(429);
      expect(response.body).toEqual({ code: "rate_limited", message: expect.stringMatching(what) });
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3_600);
    }

    it("limits each session code across replicas, before the body is read; another session is unaffected", async () => {
      const settings = { ...WINDOW, PLAYER_API_RATE_LIMIT_PER_SESSION: 3, PLAYER_API_RATE_LIMIT_PER_ADDRESS: 1_000_000 };
      const [first, second] = await Promise.all([stack.startGateway(settings), stack.startGateway(settings)]);
      try {
        const limited = await session({ player: { id: "p-rate-1" } });
        const other = await session({ player: { id: "p-rate-2" } });
        const auth = (sessionCode: string) => ({ authorization: `Session ${sessionCode}`, ...from() });
        expect((await first.request("/player-api/tickets", { headers: auth(limited) })).status).toBe(200);
        expect((await second.request("/player-api/tickets", { headers: auth(limited) })).status).toBe(200);
        expect((await first.request("/player-api/tickets", { method: "POST", json: { nope: true }, headers: auth(limited) })).status).toBe(400);
        expectRateLimited(await second.request("/player-api/tickets", { headers: auth(limited) }), /for this session/);
        expectRateLimited(await first.request("/player-api/tickets", { method: "POST", json: { message: "hi" }, headers: auth(limited) }), /for this session/);
        expect((await first.request("/player-api/tickets", { headers: auth(other) })).status).toBe(200);
        expect((await second.request("/player-api/tickets", { headers: auth(other) })).status).toBe(200);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    });

    it("limits each client address, unknown codes included, apart from the public endpoints' count", async () => {
      const gateway = await stack.startGateway({ ...WINDOW, PLAYER_API_RATE_LIMIT_PER_SESSION: 1_000_000, PLAYER_API_RATE_LIMIT_PER_ADDRESS: 2 });
      try {
        const address = from();
        const fresh = await session({ player: { id: "p-rate-3" } });
        expect((await gateway.request("/player-api/tickets", { headers: { ...address, authorization: "Session not-a-real-session-code-0000000000000" } })).status).toBe(403);
        expect((await gateway.request("/player-api/tickets", { headers: { ...address, authorization: `Session ${fresh}` } })).status).toBe(200);
        expectRateLimited(await gateway.request("/player-api/tickets", { headers: { ...address, authorization: `Session ${fresh}` } }), /from this address/);
        // The public endpoints keep their own count for the address.
        const token = a.games.galaxy!.environments["galaxy-production"]!.token;
        expect((await gateway.request("/support/sessions", { method: "POST", json: { token }, headers: address })).status).toBe(200);
        // Another address is not affected.
        expect((await gateway.request("/player-api/tickets", { headers: { ...from(), authorization: `Session ${fresh}` } })).status).toBe(200);
      } finally {
        await gateway.stop();
      }
    });
  });
});
