// The support application's ticket routes end to end: users with passwords set the operators'
// way sign in, and work on tickets created through the public API. Scope (company, then the
// agent's games: 404 outside, like a ticket that does not exist), actions performed as the
// session's user, CSRF, and the one ticket projection shared by GET /tickets, the webhook
// payload and the agent's ticket view. Every answer is checked against the OpenAPI document.
import http from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import { freePort } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = {
  ada: `ada-${suffix}@studio.example`, // agent, Galaxy only
  bea: `bea-${suffix}@studio.example`, // agent, Farm only
  adam: `adam-${suffix}@studio.example`, // admin
  olga: `olga-${suffix}@elsewhere.example`, // admin of another company
};

type Agent = SignedInAgent;

interface TicketView {
  ticket: Record<string, unknown> & { id: string; status: string };
  assigneeId: string | null;
  conversation: { event: { type: string; message?: string; attachments?: { id: string }[]; mergedFrom?: Record<string, unknown> }; author: { type: string; id: string | null } }[];
  player: {
    record: { servicePlayerId: string; playerId: string | null; name: string | null; email: string | null; tier: number | null; blocked: boolean } | null;
    breadcrumbs: unknown[];
    clientClockOffsetMs: number | null;
    otherTickets: { id: string }[];
  };
}

/** An HTTP receiver on a free port that answers 204 and keeps every body. */
async function startReceiver(): Promise<{ url: string; bodies: string[]; stop(): Promise<void> }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/hooks`, bodies, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

let stack: Stack;
let tenant: TenantResult;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const agents: Record<keyof typeof emails, Agent> = {} as never;

const origin = () => new URL(stack.url).origin;
const signIn = (email: string) => signInAgent(stack, email, PASSWORD);

const view = (agent: Agent, ticketId: string) => stack.request(`/agent-api/tickets/${ticketId}`, { headers: { cookie: agent.cookie } });
const act = (agent: Agent, ticketId: string, actions: unknown[], headers: Record<string, string> = {}) =>
  stack.request(`/agent-api/tickets/${ticketId}/actions`, {
    method: "POST",
    headers: { cookie: agent.cookie, origin: origin(), "x-csrf-token": agent.csrfToken, ...headers },
    json: { actions },
  });

async function createTicket(gameRef: string, player: Record<string, unknown>, message = `Help with ${randomUUID()}`, attachments: string[] = []): Promise<string> {
  const response = await stack.request("/tickets", {
    method: "POST",
    key: tenant.apiKeys.main!,
    json: { gameId: tenant.games[gameRef]!.id, message, attachments, language: "en", channels: ["email"], metadata: { player } },
  });
  expect(response.status, response.text).toBe(200);
  return (response.body as { ticketId: string }).ticketId;
}

const listed = async (ticketId: string) =>
  ((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: Record<string, unknown>[] }).tickets[0];

beforeAll(async () => {
  receiver = await startReceiver();
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Agent Tickets Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    tags: [{ name: "bug", game: null }],
    users: [
      { ref: "ada", name: "Ada Agent", email: emails.ada, role: "agent", games: ["galaxy"] },
      { ref: "bea", name: "Bea Agent", email: emails.bea, role: "agent", games: ["farm"] },
      { ref: "adam", name: "Adam Admin", email: emails.adam, role: "admin" },
    ],
  });
  await stack.applyTenant({
    company: { name: "Elsewhere" },
    games: [{ ref: "castle", name: "Castle", slug: `castle-${suffix}`, languages: ["en"] }],
    users: [{ ref: "olga", name: "Olga Other", email: emails.olga, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  for (const [name, email] of Object.entries(emails)) agents[name as keyof typeof emails] = await signIn(email);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
});

describe("GET /agent-api/tickets/{ticketId}", () => {
  it("shows the ticket as GET /tickets lists it, the whole conversation with its authors, and the player panel", async () => {
    const player = { id: `p-${suffix}`, name: "Pat", email: "pat@example.com", tier: 2 };
    const earlier = await createTicket("galaxy", player, "My first ship is gone");
    const ticketId = await createTicket("galaxy", player, "The map crashes on open");
    const ada = agents.ada;
    const acted = await act(ada, ticketId, [
      { type: "assignTicket", assigneeId: ada.userId },
      { type: "sendMessage", message: "Could you send a screenshot?" },
      { type: "addPrivateNote", message: "Looks like the map bug" },
      { type: "addTags", tagNames: ["bug"] },
    ]);
    expect(acted.status, acted.text).toBe(200);
    expect(acted.body).toEqual({ success: true });

    const response = await view(ada, ticketId);
    expect(response.status, response.text).toBe(200);
    const body = response.body as TicketView;
    // The same projection as the public list: every field, the same values.
    expect(body.ticket).toEqual(await listed(ticketId));
    expect(body.ticket).toMatchObject({ status: "assigned", tags: ["bug"] });
    expect(body.assigneeId).toBe(ada.userId);
    const servicePlayerId = body.ticket.servicePlayerId as string;
    expect(body.conversation.map((entry) => [entry.event.type, entry.event.message, entry.author])).toEqual([
      ["PLAYER_MESSAGE", "The map crashes on open", { type: "player", id: servicePlayerId }],
      ["AGENT_MESSAGE", "Could you send a screenshot?", { type: "user", id: ada.userId }],
      ["PRIVATE_NOTE", "Looks like the map bug", { type: "user", id: ada.userId }],
    ]);
    expect(body.player.record).toEqual({ servicePlayerId, playerId: player.id, name: "Pat", email: "pat@example.com", tier: 2, blocked: false });
    expect(body.player.otherTickets.map((t) => t.id)).toEqual([earlier]);
    expect(body.player.breadcrumbs).toEqual([]);
  });

  it("is 404 for a ticket of a game the agent lacks, of another company, or unknown: one answer for all", async () => {
    const ticketId = await createTicket("galaxy", { id: `q-${suffix}`, email: "q@example.com" });
    const unknown = await view(agents.ada, randomUUID());
    expect(unknown.status).toBe(404);
    for (const outsider of [agents.bea, agents.olga]) {
      const response = await view(outsider, ticketId);
      expect(response.status, response.text).toBe(404);
      expect(response.body).toEqual(unknown.body);
    }
    // The agent of the game and the company's admin see it.
    expect((await view(agents.ada, ticketId)).status).toBe(200);
    expect((await view(agents.adam, ticketId)).status).toBe(200);
  });

  it("links attachments of the conversation to a short-lived download, and nothing outside it", async () => {
    const bytes = randomBytes(2000);
    const upload = await stack.request("/attachments", {
      method: "POST", key: tenant.apiKeys.main!, json: { gameId: tenant.games.galaxy!.id, fileName: "shot.png", fileType: "image/png", fileSize: bytes.length },
    });
    const instruction = upload.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
    expect((await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes })).status).toBe(200);
    const ticketId = await createTicket("galaxy", { id: `att-${suffix}`, email: "att@example.com" }, "Screenshot attached", [instruction.attachmentId]);
    const elsewhere = await createTicket("galaxy", { id: `att2-${suffix}`, email: "att2@example.com" });

    const body = (await view(agents.ada, ticketId)).body as TicketView;
    expect(body.conversation[0]!.event.attachments).toEqual([{ id: instruction.attachmentId }]);
    const redirect = await stack.request(`/agent-api/tickets/${ticketId}/attachments/${instruction.attachmentId}`, { headers: { cookie: agents.ada.cookie } });
    expect(redirect.status, redirect.text).toBe(307);
    const download = await fetch(redirect.headers.get("location")!);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    // Not through another ticket, nor for a user outside the game.
    expect((await stack.request(`/agent-api/tickets/${elsewhere}/attachments/${instruction.attachmentId}`, { headers: { cookie: agents.ada.cookie } })).status).toBe(404);
    expect((await stack.request(`/agent-api/tickets/${ticketId}/attachments/${instruction.attachmentId}`, { headers: { cookie: agents.bea.cookie } })).status).toBe(404);
  });

  it("takes the cookie only: an API key is refused there, and the cookie is refused by the public API", async () => {
    const ticketId = await createTicket("galaxy", { id: `k-${suffix}`, email: "k@example.com" });
    expect((await stack.request(`/agent-api/tickets/${ticketId}`, { key: tenant.apiKeys.main! })).status).toBe(401);
    expect((await stack.request(`/agent-api/tickets/${ticketId}`)).status).toBe(401);
    expect((await stack.request(`/tickets?ticketId=${ticketId}`, { headers: { cookie: agents.ada.cookie } })).status).toBe(403);
  });
});

describe("POST /agent-api/tickets/{ticketId}/actions", () => {
  it("attributes every action to the signed-in user", async () => {
    const ticketId = await createTicket("farm", { id: `b-${suffix}`, email: "b@example.com" });
    const response = await act(agents.bea, ticketId, [{ type: "sendMessage", message: "On it" }, { type: "setPlayerInfo", player: { name: "Bo" } }, { type: "resolveTicket" }]);
    expect(response.status, response.text).toBe(200);
    const body = (await view(agents.bea, ticketId)).body as TicketView;
    expect(body.ticket).toMatchObject({ status: "closed", resolutionType: "resolved", playerName: "Bo" });
    expect(body.conversation.slice(1).map((entry) => [entry.event.type, entry.author])).toEqual([
      ["AGENT_MESSAGE", { type: "user", id: agents.bea.userId }],
      ["END", { type: "user", id: agents.bea.userId }],
    ]);
  });

  it("refuses a userId in the body with a 400 at the action's path, and applies nothing", async () => {
    const ticketId = await createTicket("galaxy", { id: `u-${suffix}`, email: "u@example.com" });
    const response = await act(agents.ada, ticketId, [{ type: "addPrivateNote", message: "fine" }, { type: "sendMessage", message: "as Adam", userId: agents.adam.userId }]);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/actions/1/userId" }] } });
    expect(((await view(agents.ada, ticketId)).body as TicketView).conversation.map((entry) => entry.event.type)).toEqual(["PLAYER_MESSAGE"]);
  });

  it("refuses a request without the CSRF token or from another origin (403), and applies nothing", async () => {
    const ticketId = await createTicket("galaxy", { id: `c-${suffix}`, email: "c@example.com" });
    const note = [{ type: "addPrivateNote", message: "forged" }];
    const noToken = await act(agents.ada, ticketId, note, { "x-csrf-token": "" });
    expect(noToken.status, noToken.text).toBe(403);
    const wrongToken = await act(agents.ada, ticketId, note, { "x-csrf-token": agents.bea.csrfToken });
    expect(wrongToken.status).toBe(403);
    const otherOrigin = await act(agents.ada, ticketId, note, { origin: "https://evil.example" });
    expect(otherOrigin.status).toBe(403);
    expect(otherOrigin.body).toMatchObject({ code: "permission_denied" });
    expect(((await view(agents.ada, ticketId)).body as TicketView).conversation).toHaveLength(1);
  });

  it("is 404 outside the user's games and company, and changes nothing there", async () => {
    const ticketId = await createTicket("galaxy", { id: `o-${suffix}`, email: "o@example.com" });
    for (const outsider of [agents.bea, agents.olga]) {
      const response = await act(outsider, ticketId, [{ type: "resolveTicket" }]);
      expect(response.status, response.text).toBe(404);
    }
    expect(await listed(ticketId)).toMatchObject({ status: "new", resolutionType: null });
  });

  it("answers a closed ticket's status action with 409, like the public route", async () => {
    const ticketId = await createTicket("galaxy", { id: `z-${suffix}`, email: "z@example.com" });
    expect((await act(agents.ada, ticketId, [{ type: "rejectTicket" }])).status).toBe(200);
    const again = await act(agents.ada, ticketId, [{ type: "sendMessage", message: "late" }]);
    expect(again.status, again.text).toBe(409);
    expect(again.body).toMatchObject({ code: "conflict" });
  });

  it("replays a retried request with the same Idempotency-Key, and refuses the key for another user's request (422)", async () => {
    const ticketId = await createTicket("galaxy", { id: `i-${suffix}`, email: "i@example.com" });
    const key = { "idempotency-key": randomUUID() };
    const actions = [{ type: "addPrivateNote", message: "only once" }];
    const first = await act(agents.ada, ticketId, actions, key);
    expect(first.status, first.text).toBe(200);
    const retry = await act(agents.ada, ticketId, actions, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(((await view(agents.ada, ticketId)).body as TicketView).conversation.filter((entry) => entry.event.type === "PRIVATE_NOTE")).toHaveLength(1);
    const byAdmin = await act(agents.adam, ticketId, actions, key);
    expect(byAdmin.status, byAdmin.text).toBe(422);
  });
});

describe("POST /agent-api/tickets/{ticketId}/merge", () => {
  const merge = (agent: Agent, ticketId: string, body: unknown, headers: Record<string, string> = {}) =>
    stack.request(`/agent-api/tickets/${ticketId}/merge`, {
      method: "POST",
      headers: { cookie: agent.cookie, origin: origin(), "x-csrf-token": agent.csrfToken, ...headers },
      json: body,
    });
  /** Two tickets of one new player in a game: the target first, then the source. */
  const pairOf = async (gameRef = "galaxy", attachments: string[] = []) => {
    const player = { id: `m-${randomUUID()}`, name: "Max", email: `max-${randomUUID()}@example.com` };
    const target = await createTicket(gameRef, player, `My account is locked ${randomUUID()}`);
    const source = await createTicket(gameRef, player, `Also my purchase vanished ${randomUUID()}`, attachments);
    return { player, source, target };
  };
  const runningIdOf = async (ticketId: string) => (await listed(ticketId))!.runningId as number;

  it("merges: the target shows the source's conversation marked as merged, the public list shows the source merged with followUpTicketId, webhooks say so", async () => {
    const subscribed = await stack.request("/webhooks", {
      method: "POST", key: tenant.apiKeys.main!, json: { url: receiver.url, eventTypes: ["ticket.closed"], gameIds: [tenant.games.galaxy!.id] },
    });
    expect(subscribed.status, subscribed.text).toBe(200);
    const bytes = randomBytes(1000);
    const upload = await stack.request("/attachments", {
      method: "POST", key: tenant.apiKeys.main!, json: { gameId: tenant.games.galaxy!.id, fileName: "receipt.png", fileType: "image/png", fileSize: bytes.length },
    });
    const instruction = upload.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
    expect((await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes })).status).toBe(200);
    const { source, target } = await pairOf("galaxy", [instruction.attachmentId]);
    const ada = agents.ada;
    expect((await act(ada, source, [{ type: "addTags", tagNames: ["bug"] }, { type: "sendMessage", message: "Which purchase?" }])).status).toBe(200);
    const [sourceNumber, targetNumber] = [await runningIdOf(source), await runningIdOf(target)];

    const response = await merge(ada, source, { targetTicketId: target });
    expect(response.status, response.text).toBe(200);
    const result = response.body as { source: Record<string, unknown>; target: Record<string, unknown> };
    expect(result.source).toMatchObject({ id: source, status: "closed", resolutionType: "merged", followUpTicketId: target });
    expect(result.target).toMatchObject({ id: target, tags: ["bug"] });

    // The public API: the source is closed as merged and names the target.
    expect(await listed(source)).toMatchObject({ status: "closed", resolutionType: "merged", followUpTicketId: target });
    expect(await listed(target)).toMatchObject({ status: "new", resolutionType: null, followUpTicketId: null, tags: ["bug"] });

    // The agent's view of the target: its own message, the source's two in order, marked, then who merged.
    const body = (await view(ada, target)).body as TicketView;
    expect(body.conversation.map((entry) => [entry.event.type, entry.event.mergedFrom?.runningId ?? null, entry.author.type])).toEqual([
      ["PLAYER_MESSAGE", null, "player"],
      ["PLAYER_MESSAGE", sourceNumber, "player"],
      ["AGENT_MESSAGE", sourceNumber, "user"],
      ["PRIVATE_NOTE", null, "user"],
    ]);
    expect(body.conversation[1]!.event).toMatchObject({ attachments: [{ id: instruction.attachmentId }], mergedFrom: { ticketId: source, runningId: sourceNumber } });
    expect(body.conversation[3]).toMatchObject({ event: { message: `Merged #${sourceNumber} into this ticket.` }, author: { type: "user", id: ada.userId } });
    // The source's view: closed as merged, with the note naming the target.
    const closed = (await view(ada, source)).body as TicketView;
    expect(closed.ticket).toMatchObject({ resolutionType: "merged", followUpTicketId: target });
    expect(closed.conversation.at(-1)).toMatchObject({ event: { type: "PRIVATE_NOTE", message: `Merged into #${targetNumber}.` }, author: { type: "user", id: ada.userId } });

    // The public events of the target show the copies marked the same way.
    const events = (await stack.request(`/tickets/${target}/events`, { key: tenant.apiKeys.main! })).body as { events: { type: string; mergedFrom?: { ticketId: string } }[] };
    expect(events.events.map((event) => event.mergedFrom?.ticketId ?? null)).toEqual([null, source, source, null]);
    // The attachment stays reachable from the target.
    const redirect = await stack.request(`/agent-api/tickets/${target}/attachments/${instruction.attachmentId}`, { headers: { cookie: ada.cookie } });
    expect(redirect.status, redirect.text).toBe(307);
    expect(Buffer.from(await (await fetch(redirect.headers.get("location")!)).arrayBuffer())).toEqual(bytes);

    // Webhooks: ticket.closed of the source with resolutionType merged and the ticket to follow.
    await eventually(async () => receiver.bodies.some((raw) => raw.includes(source) && raw.includes("ticket.closed")), 30_000);
    const closedHook = JSON.parse(receiver.bodies.find((raw) => raw.includes(source) && raw.includes("ticket.closed"))!) as { type: string; data: Record<string, unknown> };
    expect(closedHook).toMatchObject({ type: "ticket.closed", data: { ticketId: source, resolutionType: "merged", followUpTicketId: target, actor: { type: "user", id: ada.userId } } });
  });

  it("shows the player, on their web page, the source closed as merged and the target with its messages, never the notes", async () => {
    const token = tenant.games.galaxy!.environments["galaxy-prod"]!.token;
    const created = await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: `web-${randomUUID()}`, name: "Wen" } } });
    expect(created.status, created.text).toBe(200);
    const { sessionCode } = created.body as { sessionCode: string };
    const asPlayer = (path: string, json?: unknown) =>
      stack.request(path, { method: json === undefined ? "GET" : "POST", json, headers: { authorization: `Session ${sessionCode}` } });
    const open = async (message: string) => ((await asPlayer("/player-api/tickets", { message })).body as { ticketId: string }).ticketId;
    const target = await open(`The shop charged me twice ${randomUUID()}`);
    const source = await open(`Also the map is blank ${randomUUID()}`);
    expect((await act(agents.ada, source, [{ type: "sendMessage", message: "Which map?" }])).status).toBe(200);
    expect((await merge(agents.ada, source, { targetTicketId: target })).status).toBe(200);

    const mine = (await asPlayer("/player-api/tickets")).body as { tickets: { id: string; status: string; resolutionType: string | null }[] };
    expect(mine.tickets.find((ticket) => ticket.id === source)).toMatchObject({ status: "closed", resolutionType: "merged" });
    expect(mine.tickets.find((ticket) => ticket.id === target)).toMatchObject({ status: "new", resolutionType: null });
    const onTarget = (await asPlayer(`/player-api/tickets/${target}/events`)).body as { events: { type: string; message?: string; mergedFrom?: { ticketId: string } }[] };
    expect(onTarget.events.map((event) => [event.type, event.mergedFrom?.ticketId ?? null])).toEqual([
      ["PLAYER_MESSAGE", null],
      ["PLAYER_MESSAGE", source],
      ["AGENT_MESSAGE", source],
    ]);
    const onSource = (await asPlayer(`/player-api/tickets/${source}/events`)).body as { events: { type: string }[] };
    expect(onSource.events.map((event) => event.type)).toEqual(["PLAYER_MESSAGE", "AGENT_MESSAGE"]);
    // A merged ticket is not rated: only resolved ones are.
    expect((await asPlayer(`/player-api/tickets/${source}/csat`, { score: 5 })).status).toBe(409);
  });

  it("is 404 when either ticket is outside the user's games or company, and changes nothing", async () => {
    const { player, source, target } = await pairOf();
    const farm = await createTicket("farm", player, `On the farm ${randomUUID()}`);
    for (const outsider of [agents.bea, agents.olga]) {
      const response = await merge(outsider, source, { targetTicketId: target });
      expect(response.status, response.text).toBe(404);
      expect(response.body).toEqual({ code: "not_found", message: "ticket not found" });
    }
    // Ada sees the galaxy tickets, not the farm one: the target is not found, whether it exists or not.
    const outside = await merge(agents.ada, source, { targetTicketId: farm });
    expect(outside.status, outside.text).toBe(404);
    const unknown = await merge(agents.ada, source, { targetTicketId: randomUUID() });
    expect(unknown.body).toEqual(outside.body);
    expect(outside.body).toEqual({ code: "not_found", message: "target ticket not found" });
    expect(await listed(source)).toMatchObject({ status: "new", resolutionType: null, followUpTicketId: null });
    expect(((await view(agents.ada, target)).body as TicketView).conversation).toHaveLength(1);
  });

  it("refuses a merge into itself or another player's ticket (400 at /targetTicketId), of or into a closed ticket (409), without CSRF (403)", async () => {
    const { source, target } = await pairOf();
    const stranger = (await pairOf()).target;
    const itself = await merge(agents.ada, source, { targetTicketId: source });
    expect(itself.status, itself.text).toBe(400);
    expect(itself.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/targetTicketId" }] } });
    const otherPlayer = await merge(agents.ada, source, { targetTicketId: stranger });
    expect(otherPlayer.status).toBe(400);
    expect(otherPlayer.body).toMatchObject({ details: { issues: [{ path: "/targetTicketId", message: "must be a ticket of the same player" }] } });
    const malformed = await merge(agents.ada, source, { targetTicketId: "42" });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ details: { issues: [{ path: "/targetTicketId" }] } });
    const noToken = await merge(agents.ada, source, { targetTicketId: target }, { "x-csrf-token": "" });
    expect(noToken.status).toBe(403);
    expect(await listed(source)).toMatchObject({ status: "new", resolutionType: null });

    expect((await act(agents.ada, target, [{ type: "resolveTicket" }])).status).toBe(200);
    const closedTarget = await merge(agents.ada, source, { targetTicketId: target });
    expect(closedTarget.status, closedTarget.text).toBe(409);
    expect(closedTarget.body).toMatchObject({ code: "conflict" });
    const resolvedSource = await merge(agents.ada, target, { targetTicketId: source });
    expect(resolvedSource.status, resolvedSource.text).toBe(409);
    expect(await listed(source)).toMatchObject({ status: "new", resolutionType: null });
    expect(await listed(target)).toMatchObject({ status: "closed", resolutionType: "resolved", followUpTicketId: null });
  });
});

describe("one ticket projection", () => {
  it("GET /tickets?ticketId=, the ticket.created webhook payload and GET /agent-api/tickets/{id} show the same fields with the same values", async () => {
    const subscribed = await stack.request("/webhooks", {
      method: "POST", key: tenant.apiKeys.main!, json: { url: receiver.url, eventTypes: ["ticket.created"], gameIds: [tenant.games.galaxy!.id] },
    });
    expect(subscribed.status, subscribed.text).toBe(200);
    const ticketId = await createTicket("galaxy", { id: `w-${suffix}`, name: "Wren", email: "wren@example.com", tier: 3 }, "Lost my save");
    await eventually(async () => receiver.bodies.some((body) => body.includes(ticketId)), 30_000);
    const payload = JSON.parse(receiver.bodies.find((body) => body.includes(ticketId))!) as { type: string; data: { ticket: Record<string, unknown> } };
    expect(payload.type).toBe("ticket.created");

    const fromList = await listed(ticketId);
    const fromAgent = ((await view(agents.ada, ticketId)).body as TicketView).ticket;
    // Compared key by key first, so that a missing field is named, then as a whole.
    expect(Object.keys(payload.data.ticket).sort()).toEqual(Object.keys(fromList!).sort());
    expect(Object.keys(fromAgent).sort()).toEqual(Object.keys(fromList!).sort());
    expect(payload.data.ticket).toEqual(fromList);
    expect(fromAgent).toEqual(fromList);
    expect(fromList).toMatchObject({ id: ticketId, playerName: "Wren", email: "wren@example.com", metadata: { playerTier: 3 } });
  });
});

describe("GET /agent-api/tickets and GET /agent-api/views", () => {
  // A company of its own, so that the counts are exactly those of the tickets made here.
  let views: TenantResult;
  const viewEmails = { vic: `vic-${suffix}@views.example`, val: `val-${suffix}@views.example`, vera: `vera-${suffix}@views.example` };
  const users: Record<keyof typeof viewEmails, Agent> = {} as never;
  const t: Record<string, { id: string; runningId: number }> = {};

  const create = async (gameRef: string, message: string, player: Record<string, unknown> = {}) => {
    const response = await stack.request("/tickets", {
      method: "POST",
      key: views.apiKeys.main!,
      json: { gameId: views.games[gameRef]!.id, message, language: "en", channels: ["email"], metadata: { player: { id: `pl-${randomUUID()}`, email: "v@example.com", ...player } } },
    });
    expect(response.status, response.text).toBe(200);
    return response.body as { ticketId: string; runningId: number };
  };
  const as = async (agent: Agent, ticket: { id: string }, actions: unknown[]) => {
    const response = await act(agent, ticket.id, actions);
    expect(response.status, response.text).toBe(200);
  };
  const list = async (agent: Agent, query: string) => {
    const response = await stack.request(`/agent-api/tickets?${query}`, { headers: { cookie: agent.cookie } });
    expect(response.status, response.text).toBe(200);
    return response.body as { tickets: { ticket: { id: string }; assigneeId: string | null }[]; pagination: { cursor: string | null } };
  };
  const ids = async (agent: Agent, query: string) => (await list(agent, query)).tickets.map((item) => item.ticket.id);
  const counts = async (agent: Agent) => {
    const response = await stack.request("/agent-api/views", { headers: { cookie: agent.cookie } });
    expect(response.status, response.text).toBe(200);
    return Object.fromEntries((response.body as { views: { id: string; count: number }[] }).views.map((view) => [view.id, view.count]));
  };

  beforeAll(async () => {
    views = await stack.applyTenant({
      company: { name: "Views Studio" },
      apiKeys: [{ name: "main" }],
      games: [
        { ref: "north", name: "North", slug: `north-${suffix}`, languages: ["en"], environments: [{ ref: "north-prod", name: "production" }] },
        { ref: "south", name: "South", slug: `south-${suffix}`, languages: ["en"], environments: [{ ref: "south-prod", name: "production" }] },
      ],
      users: [
        { ref: "vic", name: "Vic Agent", email: viewEmails.vic, role: "agent", games: ["north"] },
        { ref: "val", name: "Val Agent", email: viewEmails.val, role: "agent", games: ["north"] },
        { ref: "vera", name: "Vera Admin", email: viewEmails.vera, role: "admin" },
      ],
    });
    for (const email of Object.values(viewEmails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    for (const [name, email] of Object.entries(viewEmails)) users[name as keyof typeof viewEmails] = await signIn(email);
    const { vic, val } = users;
    // In creation order: new; Vic's; Vic's and waiting; on hold without assignee; Val's, resolved;
    // rejected without assignee; a ticket of the game Vic lacks.
    for (const [name, game, message, player] of [
      ["fresh", "north", "The harbour gate is stuck", { tier: 3 }],
      ["vics", "north", "My lighthouse went dark"],
      ["waiting", "north", "Compass spins forever"],
      ["held", "north", "Anchor lost after update"],
      ["resolved", "north", "Sails torn"],
      ["rejected", "north", "Refund my seagulls"],
      ["south", "south", "Southern dock flooded"],
    ] as const) {
      const created = await create(game, message, player ?? {});
      t[name] = { id: created.ticketId, runningId: created.runningId };
    }
    await as(vic, t.vics!, [{ type: "assignTicket", assigneeId: vic.userId }, { type: "addPrivateNote", message: "probably the kraken" }]);
    await as(vic, t.waiting!, [{ type: "assignTicket", assigneeId: vic.userId }, { type: "setStatus", status: "waiting" }]);
    await as(val, t.held!, [{ type: "setOnHold", onHold: true }]);
    await as(val, t.resolved!, [{ type: "assignTicket", assigneeId: val.userId }, { type: "resolveTicket" }]);
    await as(val, t.rejected!, [{ type: "rejectTicket" }]);
    // The most recent activity: the oldest ticket.
    await as(val, t.fresh!, [{ type: "addPrivateNote", message: "looked at it" }]);
  }, 120_000);

  it("counts each view for the user within their games, and each view lists exactly what it counts", async () => {
    const vic = await counts(users.vic);
    expect(vic).toEqual({ mine: 2, unassigned: 2, open: 4, waiting: 1, on_hold: 1, closed_7d: 2 });
    // The admin has both games (the southern ticket is new and unassigned); nobody is assigned to them.
    expect(await counts(users.vera)).toEqual({ mine: 0, unassigned: 3, open: 5, waiting: 1, on_hold: 1, closed_7d: 2 });
    expect(await counts(users.val)).toMatchObject({ mine: 0 });
    for (const [view, count] of Object.entries(vic)) expect(await ids(users.vic, `view=${view}`), view).toHaveLength(count);
    expect(new Set(await ids(users.vic, "view=mine"))).toEqual(new Set([t.vics!.id, t.waiting!.id]));
    expect(new Set(await ids(users.vic, "view=unassigned"))).toEqual(new Set([t.fresh!.id, t.held!.id]));
    expect(new Set(await ids(users.vic, "view=closed_7d"))).toEqual(new Set([t.resolved!.id, t.rejected!.id]));
  });

  it("shows a user of another company nothing, and an agent nothing of a game they lack", async () => {
    expect(Object.values(await counts(agents.olga)).every((count) => count === 0)).toBe(true);
    expect(await ids(agents.olga, "")).toEqual([]);
    expect(await ids(users.vic, `gameId=${views.games.south!.id}`)).toEqual([]);
    expect(await ids(users.vera, `gameId=${views.games.south!.id}`)).toEqual([t.south!.id]);
    expect((await ids(users.vic, "")).includes(t.south!.id)).toBe(false);
  });

  it("lists the newest first, each ticket as the public projection with its assignee", async () => {
    const page = await list(users.vic, "");
    expect(page.tickets.map((item) => item.ticket.id)).toEqual(["rejected", "resolved", "held", "waiting", "vics", "fresh"].map((name) => t[name]!.id));
    expect(page.tickets[0]!.ticket).toEqual(await (async () => {
      const listed = await stack.request(`/tickets?ticketId=${t.rejected!.id}`, { key: views.apiKeys.main! });
      return (listed.body as { tickets: unknown[] }).tickets[0];
    })());
    expect(page.tickets.find((item) => item.ticket.id === t.vics!.id)!.assigneeId).toBe(users.vic.userId);
  });

  it("sorts by last activity, and pages through a view without skipping or repeating", async () => {
    expect((await ids(users.vic, "sort=lastActivityAt&view=open"))[0]).toBe(t.fresh!.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(users.vic, `view=open&sort=lastActivityAt&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...page.tickets.map((item) => item.ticket.id));
      cursor = page.pagination.cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(4);
    expect(new Set(seen)).toEqual(new Set(["fresh", "vics", "waiting", "held"].map((name) => t[name]!.id)));
    // A cursor belongs to its sort.
    const byActivity = (await list(users.vic, "view=open&sort=lastActivityAt&limit=1")).pagination.cursor!;
    const wrong = await stack.request(`/agent-api/tickets?view=open&limit=1&cursor=${encodeURIComponent(byActivity)}`, { headers: { cookie: users.vic.cookie } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ details: { issues: [{ path: "/query/cursor" }] } });
  });

  it("filters by assignee, tier, channel, status and text (messages, notes, the running number)", async () => {
    expect(new Set(await ids(users.vic, "assignee=nobody"))).toEqual(new Set([t.fresh!.id, t.held!.id, t.rejected!.id]));
    expect(new Set(await ids(users.vic, `assignee=${users.val.userId}`))).toEqual(new Set([t.resolved!.id]));
    expect(new Set(await ids(users.vic, "assignee=me&status=%5B%22waiting%22%5D"))).toEqual(new Set([t.waiting!.id]));
    expect(await ids(users.vic, "tier=3")).toEqual([t.fresh!.id]);
    expect(await ids(users.vic, "channel=chat")).toEqual([]);
    expect(await ids(users.vic, "channel=email")).toHaveLength(6);
    expect(await ids(users.vic, "q=LIGHTHOUSE")).toEqual([t.vics!.id]);
    expect(await ids(users.vic, "q=kraken")).toEqual([t.vics!.id]);
    expect(await ids(users.vic, `q=%23${t.held!.runningId}`)).toEqual([t.held!.id]);
    // Another game's text is not found by an agent without it.
    expect(await ids(users.vic, "q=southern")).toEqual([]);
    expect(await ids(users.vic, "q=100%25")).toEqual([]);
  });

  it("searches by stem with a highlighted snippet per ticket: a message, a private note, the running number", async () => {
    type Match = { field: string; eventId: string | null; snippet: { text: string; highlight: boolean }[] };
    const search = async (q: string) => (await list(users.vic, `q=${encodeURIComponent(q)}`)).tickets as { ticket: { id: string }; match?: Match }[];
    const marked = (match: Match | undefined) => match?.snippet.map((part) => (part.highlight ? `[${part.text}]` : part.text)).join("");
    const [lighthouse] = await search("lighthouses dark");
    expect(lighthouse).toMatchObject({ ticket: { id: t.vics!.id }, match: { field: "message", eventId: expect.any(String) } });
    expect(marked(lighthouse!.match)).toBe("My [lighthouse] went [dark]");
    const [note] = await search("krakens");
    expect(note).toMatchObject({ ticket: { id: t.vics!.id }, match: { field: "note" } });
    expect(marked(note!.match)).toBe("probably the [kraken]");
    expect(await search('"gate stuck"')).toEqual([]);
    expect((await search('"gate is stuck"')).map((item) => item.ticket.id)).toEqual([t.fresh!.id]);
    const [numbered] = await search(`#${t.held!.runningId}`);
    expect(numbered!.match).toEqual({ field: "runningId", eventId: null, snippet: [{ text: `#${t.held!.runningId}`, highlight: true }] });
    // Without q, no match.
    expect((await list(users.vic, "view=open")).tickets.every((item) => !("match" in item))).toBe(true);
    const long = await stack.request(`/agent-api/tickets?q=${"x".repeat(201)}`, { headers: { cookie: users.vic.cookie } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ details: { issues: [{ path: "/query/q" }] } });
    expect(long.text).not.toMatch(/tsquery|select|ticket_events/i);
  });

  it("refuses bad filters with a 400 naming each", async () => {
    const response = await stack.request("/agent-api/tickets?view=everything&assignee=someone&sort=name", { headers: { cookie: users.vic.cookie } });
    expect(response.status).toBe(400);
    const paths = (response.body as { details: { issues: { path: string }[] } }).details.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(expect.arrayContaining(["/query/sort", "/query/view"]));
    const assignee = await stack.request("/agent-api/tickets?assignee=someone", { headers: { cookie: users.vic.cookie } });
    expect(assignee.status).toBe(400);
    expect(assignee.body).toMatchObject({ details: { issues: [{ path: "/query/assignee" }] } });
  });
});

describe("subjects and the unread marker", () => {
  it("lists each ticket with its subject, unread until the user marks it read (204), scoped like every ticket route", async () => {
    const ticketId = await createTicket("galaxy", { id: `unread-${suffix}`, email: "unread@example.com" }, "The forge will not open\nsince the update");
    const listed = async () =>
      ((await stack.request(`/agent-api/tickets?ticketId=${ticketId}`, { headers: { cookie: agents.ada.cookie } })).body as { tickets: { subject: string; unread: boolean }[] }).tickets[0]!;
    expect(await listed()).toMatchObject({ subject: "The forge will not open", unread: true });
    const read = (agent: Agent, csrf = agent.csrfToken) =>
      stack.request(`/agent-api/tickets/${ticketId}/read`, { method: "POST", headers: { cookie: agent.cookie, origin: origin(), "x-csrf-token": csrf } });
    expect((await read(agents.ada, "wrong")).status).toBe(403);
    expect((await read(agents.bea)).status).toBe(404);
    expect((await read(agents.ada)).status).toBe(204);
    expect((await listed()).unread).toBe(false);
  });
});

describe("saved views", () => {
  it("saves a user's named search, lists it to that user only, refuses a taken name, and deletes it for that user only", async () => {
    const write = (agent: Agent, method: string, path: string, json?: unknown) =>
      stack.request(path, { method, headers: { cookie: agent.cookie, origin: origin(), "x-csrf-token": agent.csrfToken }, ...(json !== undefined ? { json } : {}) });
    const saved = await write(agents.ada, "POST", "/agent-api/saved-views", { name: "Forge trouble", q: "forge", view: "open" });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ name: "Forge trouble", q: "forge", view: "open" });
    const { id } = saved.body as { id: string };
    expect((await stack.request("/agent-api/saved-views", { headers: { cookie: agents.ada.cookie } })).body).toMatchObject({ views: [{ id, name: "Forge trouble" }] });
    expect((await stack.request("/agent-api/saved-views", { headers: { cookie: agents.bea.cookie } })).body).toEqual({ views: [] });
    expect((await write(agents.ada, "POST", "/agent-api/saved-views", { name: "forge TROUBLE", q: "anvil" })).status).toBe(409);
    const nothing = await write(agents.ada, "POST", "/agent-api/saved-views", { name: "Everything" });
    expect(nothing.status).toBe(400);
    expect(nothing.body).toMatchObject({ details: { issues: [{ path: "/q" }] } });
    expect((await write(agents.bea, "DELETE", `/agent-api/saved-views/${id}`)).status).toBe(404);
    expect((await write(agents.ada, "DELETE", `/agent-api/saved-views/${id}`)).status).toBe(204);
    expect((await stack.request("/agent-api/saved-views", { headers: { cookie: agents.ada.cookie } })).body).toEqual({ views: [] });
  });
});
