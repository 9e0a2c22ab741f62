// Files from the support application and the company's fields, end to end over the real stack
// (content, tickets, media with its S3, players): the agent API's upload for a ticket (scope,
// limits, CSRF, Idempotency-Key), attachments on an agent's reply and note (claimed through media
// like a player's message; a bad id refuses the whole request), what the player's page shows of
// them, the public route's sendMessage with attachments, and GET /agent-api/fields with setFields.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = {
  ada: `ada-${suffix}@files.example`, // agent, Galaxy only
  bea: `bea-${suffix}@files.example`, // agent, Farm only
  olga: `olga-${suffix}@elsewhere.example`, // admin of another company
};

interface Instruction {
  attachmentId: string;
  uploadUrl: string;
  uploadMethod: string;
  uploadHeaders: Record<string, string>;
  uploadExpiresInSeconds: number;
}

interface Entry {
  event: { id: string; type: string; message?: string; attachments?: { id: string }[] };
  author: { type: string; id: string | null };
}

interface TicketView {
  ticket: { id: string; fields: Record<string, unknown> };
  conversation: Entry[];
  attachments: { id: string; fileName: string; fileType: string; fileSize: number }[];
}

let stack: Stack;
let tenant: TenantResult;
let other: TenantResult;
const agents = {} as Record<keyof typeof emails, SignedInAgent>;

const origin = () => new URL(stack.url).origin;
const writeHeaders = (agent: SignedInAgent, extra: Record<string, string> = {}) => ({ cookie: agent.cookie, origin: origin(), "x-csrf-token": agent.csrfToken, ...extra });

const requestUpload = (agent: SignedInAgent, ticketId: string, json: unknown, extra: Record<string, string> = {}) =>
  stack.request(`/agent-api/tickets/${ticketId}/attachments`, { method: "POST", headers: writeHeaders(agent, extra), json });
const act = (agent: SignedInAgent, ticketId: string, actions: unknown[]) =>
  stack.request(`/agent-api/tickets/${ticketId}/actions`, { method: "POST", headers: writeHeaders(agent), json: { actions } });
const view = async (agent: SignedInAgent, ticketId: string): Promise<TicketView> => {
  const response = await stack.request(`/agent-api/tickets/${ticketId}`, { headers: { cookie: agent.cookie } });
  expect(response.status, response.text).toBe(200);
  return response.body as TicketView;
};

/** PUTs `bytes` as the instruction says; the storage's status. */
async function put(instruction: Instruction, bytes: Buffer): Promise<number> {
  return (await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes })).status;
}

/** An agent's upload of a ticket, PUT to the storage unless `complete` is false. */
async function agentUpload(agent: SignedInAgent, ticketId: string, fileName = "steps.png", complete = true): Promise<{ id: string; bytes: Buffer }> {
  const bytes = randomBytes(1500);
  const response = await requestUpload(agent, ticketId, { fileName, fileType: "image/png", fileSize: bytes.length });
  expect(response.status, response.text).toBe(200);
  const instruction = response.body as Instruction;
  if (complete) expect(await put(instruction, bytes)).toBe(200);
  return { id: instruction.attachmentId, bytes };
}

async function session(game: string, environment: string, playerId: string): Promise<string> {
  const token = tenant.games[game]!.environments[environment]!.token;
  const response = await stack.request("/support/sessions", { method: "POST", json: { token, language: "en", player: { id: playerId, email: `${playerId}@example.com` } } });
  expect(response.status, response.text).toBe(200);
  return (response.body as { sessionCode: string }).sessionCode;
}

const asPlayer = (sessionCode: string, path: string, init: { method?: string; json?: unknown } = {}): Promise<StackResponse> =>
  stack.request(path, { ...init, headers: { authorization: `Session ${sessionCode}` } });

/** A ticket opened on the player's page, with the session that opened it. */
async function playerTicket(game = "galaxy", environment = "galaxy-prod"): Promise<{ ticketId: string; sessionCode: string }> {
  const sessionCode = await session(game, environment, `p-${randomUUID().slice(0, 8)}`);
  const response = await asPlayer(sessionCode, "/player-api/tickets", { method: "POST", json: { message: "My base vanished" } });
  expect(response.status, response.text).toBe(200);
  return { ticketId: (response.body as { ticketId: string }).ticketId, sessionCode };
}


beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Files Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    fields: [
      { key: "level", name: "Level", type: "number", game: null },
      { key: "platform_note", name: "Platform note", type: "text", game: null },
      { key: "ship", name: "Ship", type: "dropdown", game: "galaxy", options: ["fighter", "explorer"] },
      { key: "crop", name: "Crop", type: "dropdown", game: "farm", options: ["wheat", "corn"] },
    ],
    users: [
      { ref: "ada", name: "Ada Agent", email: emails.ada, role: "agent", games: ["galaxy"] },
      { ref: "bea", name: "Bea Agent", email: emails.bea, role: "agent", games: ["farm"] },
    ],
  });
  other = await stack.applyTenant({
    company: { name: "Elsewhere Files" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "castle", name: "Castle", slug: `castle-${suffix}`, languages: ["en"] }],
    fields: [{ key: "moat", name: "Moat", type: "boolean", game: null }],
    users: [{ ref: "olga", name: "Olga Other", email: emails.olga, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  for (const [name, email] of Object.entries(emails)) agents[name as keyof typeof emails] = await signInAgent(stack, email, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("POST /agent-api/tickets/{ticketId}/attachments", () => {
  it("answers an upload instruction for a ticket of the agent's games, and 404 outside them", async () => {
    const { ticketId } = await playerTicket();
    const response = await requestUpload(agents.ada, ticketId, { fileName: "refund steps.png", fileType: "image/png", fileSize: 1234 });
    expect(response.status, response.text).toBe(200);
    const instruction = response.body as Instruction;
    expect(instruction).toMatchObject({ uploadMethod: "PUT", uploadHeaders: { "Content-Type": "image/png" }, uploadExpiresInSeconds: 900 });
    // Bound to the ticket's company and game: the key names both.
    expect(new URL(instruction.uploadUrl).pathname).toContain(`/${tenant.companyId}/${tenant.games.galaxy!.id}/${instruction.attachmentId}`);

    const unknown = await requestUpload(agents.ada, randomUUID(), { fileName: "a.png", fileType: "image/png", fileSize: 10 });
    expect(unknown.status).toBe(404);
    for (const outsider of [agents.bea, agents.olga]) {
      const refused = await requestUpload(outsider, ticketId, { fileName: "a.png", fileType: "image/png", fileSize: 10 });
      expect(refused.status, refused.text).toBe(404);
      expect(refused.body).toEqual(unknown.body);
    }
  });

  it("has the limits of POST /attachments", async () => {
    const { ticketId } = await playerTicket();
    const cases: [unknown, string][] = [
      [{ fileName: "a.exe", fileType: "application/x-msdownload", fileSize: 10 }, "/fileType"],
      [{ fileName: "big.mp4", fileType: "video/mp4", fileSize: 209_715_201 }, "/fileSize"],
      [{ fileName: "empty.png", fileType: "image/png", fileSize: 0 }, "/fileSize"],
      [{ fileName: "", fileType: "image/png", fileSize: 10 }, "/fileName"],
      [{ fileName: "x".repeat(256), fileType: "image/png", fileSize: 10 }, "/fileName"],
      [{ fileName: "a\u0001b.png", fileType: "image/png", fileSize: 10 }, "/fileName"],
      [{ fileName: "a.png", fileType: "image/png", fileSize: 10, gameId: tenant.games.farm!.id }, "/gameId"],
    ];
    for (const [body, path] of cases) {
      const response = await requestUpload(agents.ada, ticketId, body);
      expect(response.status, `${JSON.stringify(body)}: ${response.text}`).toBe(400);
      expect(issuePaths(response).some((issue) => issue.startsWith(path)), response.text).toBe(true);
    }
    // The largest file is accepted.
    expect((await requestUpload(agents.ada, ticketId, { fileName: "big.mp4", fileType: "video/mp4", fileSize: 209_715_200 })).status).toBe(200);
  });

  it("needs the CSRF token, and replays an Idempotency-Key's answer for the same user only", async () => {
    const { ticketId } = await playerTicket();
    const body = { fileName: "a.png", fileType: "image/png", fileSize: 10 };
    const noToken = await stack.request(`/agent-api/tickets/${ticketId}/attachments`, { method: "POST", headers: { cookie: agents.ada.cookie, origin: origin() }, json: body });
    expect(noToken.status).toBe(403);

    const key = randomUUID();
    const first = await requestUpload(agents.ada, ticketId, body, { "idempotency-key": key });
    const again = await requestUpload(agents.ada, ticketId, body, { "idempotency-key": key });
    expect(first.status, first.text).toBe(200);
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((again.body as Instruction).attachmentId).toBe((first.body as Instruction).attachmentId);
  });
});

describe("attachments on an agent's reply and note", () => {
  it("claims them, shows them in the view with their names, and the player sees the reply's but never the note's", async () => {
    const { ticketId, sessionCode } = await playerTicket();
    const replyFile = await agentUpload(agents.ada, ticketId, "refund steps.png");
    const noteFile = await agentUpload(agents.ada, ticketId, "internal log.png");
    const response = await act(agents.ada, ticketId, [
      { type: "sendMessage", message: "Here is how to get it back", attachments: [replyFile.id] },
      { type: "addPrivateNote", message: "Log of the incident", attachments: [noteFile.id] },
    ]);
    expect(response.status, response.text).toBe(200);

    const agentView = await view(agents.ada, ticketId);
    const byType = new Map(agentView.conversation.map((entry) => [entry.event.type, entry]));
    expect(byType.get("AGENT_MESSAGE")!.event.attachments).toEqual([{ id: replyFile.id }]);
    expect(byType.get("PRIVATE_NOTE")!.event.attachments).toEqual([{ id: noteFile.id }]);
    expect(agentView.attachments).toEqual(expect.arrayContaining([
      { id: replyFile.id, fileName: "refund steps.png", fileType: "image/png", fileSize: 1500 },
      { id: noteFile.id, fileName: "internal log.png", fileType: "image/png", fileSize: 1500 },
    ]));
    // Both download through the conversation's route.
    for (const file of [replyFile, noteFile]) {
      const redirect = await stack.request(`/agent-api/tickets/${ticketId}/attachments/${file.id}`, { headers: { cookie: agents.ada.cookie } });
      expect(redirect.status, redirect.text).toBe(307);
      expect(Buffer.from(await (await fetch(redirect.headers.get("location")!)).arrayBuffer())).toEqual(file.bytes);
    }

    // The player's page: the reply with its file, no note, and the note's file is not found.
    const events = (await asPlayer(sessionCode, `/player-api/tickets/${ticketId}/events`)).body as { events: Entry["event"][] };
    expect(events.events.map((event) => event.type)).not.toContain("PRIVATE_NOTE");
    expect(events.events.find((event) => event.type === "AGENT_MESSAGE")!.attachments).toEqual([{ id: replyFile.id }]);
    const playerDownload = await asPlayer(sessionCode, `/player-api/tickets/${ticketId}/attachments/${replyFile.id}`);
    expect(playerDownload.status, playerDownload.text).toBe(307);
    expect(Buffer.from(await (await fetch(playerDownload.headers.get("location")!)).arrayBuffer())).toEqual(replyFile.bytes);
    expect((await asPlayer(sessionCode, `/player-api/tickets/${ticketId}/attachments/${noteFile.id}`)).status).toBe(404);
  });

  it("refuses an unknown, foreign, unfinished or already used id at its path, and writes nothing", async () => {
    const { ticketId } = await playerTicket();
    const { ticketId: farmTicket } = await playerTicket("farm", "farm-prod");
    const { ticketId: otherTicket, sessionCode } = await playerTicket();
    const good = await agentUpload(agents.ada, ticketId);
    const unfinished = await agentUpload(agents.ada, ticketId, "never-put.png", false);
    const ofFarm = await agentUpload(agents.bea, farmTicket);
    // A player's own upload on the player side is the session's, not the company's.
    const playerUpload = await asPlayer(sessionCode, "/player-api/attachments", { method: "POST", json: { fileName: "p.png", fileType: "image/png", fileSize: 10 } });
    const playerFile = playerUpload.body as Instruction;
    expect(await put(playerFile, randomBytes(10))).toBe(200);
    // Another company's upload (its API key).
    const foreignUpload = await stack.request("/attachments", {
      method: "POST", key: other.apiKeys.main!, json: { gameId: other.games.castle!.id, fileName: "f.png", fileType: "image/png", fileSize: 10 },
    });
    const foreign = foreignUpload.body as Instruction;
    expect(await put(foreign, randomBytes(10))).toBe(200);
    // Used by another ticket already.
    const used = await agentUpload(agents.ada, otherTicket);
    expect((await act(agents.ada, otherTicket, [{ type: "addPrivateNote", message: "mine", attachments: [used.id] }])).status).toBe(200);

    const before = await view(agents.ada, ticketId);
    const cases: [string, string][] = [
      ["AAAAAAAAAAAAAAAAAAAAAAAA", "unknown"],
      ["not an id", "malformed"],
      [unfinished.id, "unfinished"],
      [ofFarm.id, "another game's"],
      [playerFile.attachmentId, "a player's"],
      [foreign.attachmentId, "another company's"],
      [used.id, "another ticket's"],
    ];
    for (const [id, what] of cases) {
      const response = await act(agents.ada, ticketId, [
        { type: "setFields", fields: { level: 9 } },
        { type: "sendMessage", message: "With a file", attachments: [good.id, id] },
      ]);
      expect(response.status, `${what}: ${response.text}`).toBe(400);
      expect(issuePaths(response), what).toEqual(["/actions/1/attachments/1"]);
    }
    const note = await act(agents.ada, ticketId, [{ type: "addPrivateNote", message: "x", attachments: [unfinished.id] }]);
    expect(note.status).toBe(400);
    expect(issuePaths(note)).toEqual(["/actions/0/attachments/0"]);
    expect((await act(agents.ada, ticketId, [{ type: "sendMessage", message: "x", attachments: Array.from({ length: 101 }, () => good.id) }])).status).toBe(400);

    // Nothing was written: the same conversation and fields.
    const after = await view(agents.ada, ticketId);
    expect(after.conversation).toEqual(before.conversation);
    expect(after.ticket.fields).toEqual(before.ticket.fields);
    // The good file is still usable.
    expect((await act(agents.ada, ticketId, [{ type: "sendMessage", message: "Now with the file", attachments: [good.id] }])).status).toBe(200);
  });

  it("claims a note's files on a closed ticket too, where notes are allowed, and still refuses a bad id there", async () => {
    const { ticketId } = await playerTicket();
    const file = await agentUpload(agents.ada, ticketId, "after-close.png");
    expect((await act(agents.ada, ticketId, [{ type: "resolveTicket" }])).status).toBe(200);
    const bad = await act(agents.ada, ticketId, [{ type: "addPrivateNote", message: "Follow-up", attachments: ["AAAAAAAAAAAAAAAAAAAAAAAA"] }]);
    expect(issuePaths(bad)).toEqual(["/actions/0/attachments/0"]);
    const note = await act(agents.ada, ticketId, [{ type: "addPrivateNote", message: "Follow-up", attachments: [file.id] }]);
    expect(note.status, note.text).toBe(200);
    const closed = await view(agents.ada, ticketId);
    expect(closed.conversation.at(-1)!.event).toMatchObject({ type: "PRIVATE_NOTE", attachments: [{ id: file.id }] });
    expect(closed.attachments.map((attachment) => attachment.id)).toEqual([file.id]);
    // A reply is refused there (409), its file claimed for this ticket only.
    const reply = await act(agents.ada, ticketId, [{ type: "sendMessage", message: "Late", attachments: [file.id] }]);
    expect(reply.status).toBe(409);
  });

  it("takes attachments on the public route's sendMessage too, the company's uploads only", async () => {
    const { ticketId, sessionCode } = await playerTicket();
    const bytes = randomBytes(800);
    const upload = await stack.request("/attachments", {
      method: "POST", key: tenant.apiKeys.main!, json: { gameId: tenant.games.galaxy!.id, fileName: "guide.pdf", fileType: "application/pdf", fileSize: bytes.length },
    });
    const instruction = upload.body as Instruction;
    expect(await put(instruction, bytes)).toBe(200);
    const refused = await stack.request(`/tickets/${ticketId}/actions`, {
      method: "POST", key: tenant.apiKeys.main!, json: { actions: [{ type: "sendMessage", message: "Guide", attachments: ["AAAAAAAAAAAAAAAAAAAAAAAA"] }] },
    });
    expect(refused.status).toBe(400);
    expect(issuePaths(refused)).toEqual(["/actions/0/attachments/0"]);
    const sent = await stack.request(`/tickets/${ticketId}/actions`, {
      method: "POST", key: tenant.apiKeys.main!, json: { actions: [{ type: "sendMessage", message: "Guide", attachments: [instruction.attachmentId] }] },
    });
    expect(sent.status, sent.text).toBe(200);
    const events = (await stack.request(`/tickets/${ticketId}/events`, { key: tenant.apiKeys.main! })).body as { events: Entry["event"][] };
    expect(events.events.find((event) => event.type === "AGENT_MESSAGE")!.attachments).toEqual([{ id: instruction.attachmentId }]);
    expect((await asPlayer(sessionCode, `/player-api/tickets/${ticketId}/attachments/${instruction.attachmentId}`)).status).toBe(307);
  });
});

describe("GET /agent-api/fields and setFields", () => {
  it("lists the company-wide fields and those of the user's games, with a dropdown's options", async () => {
    const keys = async (agent: SignedInAgent) => {
      const response = await stack.request("/agent-api/fields", { headers: { cookie: agent.cookie } });
      expect(response.status, response.text).toBe(200);
      return (response.body as { fields: { key: string }[] }).fields;
    };
    const ada = await keys(agents.ada);
    expect(ada.map((field) => field.key).sort()).toEqual(["level", "platform_note", "ship"]);
    expect(ada.find((field) => field.key === "ship")).toEqual({
      gameId: tenant.games.galaxy!.id, name: "Ship", description: null, type: "dropdown", key: "ship", isAiField: false, options: ["fighter", "explorer"],
    });
    expect(ada.find((field) => field.key === "level")).toMatchObject({ gameId: null, type: "number", options: [] });
    expect((await keys(agents.bea)).map((field) => field.key).sort()).toEqual(["crop", "level", "platform_note"]);
    expect((await keys(agents.olga)).map((field) => field.key)).toEqual(["moat"]);
    expect((await stack.request("/agent-api/fields", { key: tenant.apiKeys.main! })).status).toBe(401);
  });

  it("sets a dropdown and a number through the agent API, refusing another game's field and a wrong type", async () => {
    const { ticketId } = await playerTicket();
    const set = await act(agents.ada, ticketId, [{ type: "setFields", fields: { ship: "explorer", level: 12 } }]);
    expect(set.status, set.text).toBe(200);
    const after = await view(agents.ada, ticketId);
    expect(after.ticket.fields).toEqual({ ship: "explorer", level: 12 });
    const crop = await act(agents.ada, ticketId, [{ type: "setFields", fields: { crop: "corn" } }]);
    expect(crop.status).toBe(400);
    expect(issuePaths(crop)).toEqual(["/actions/0/fields/crop"]);
    const wrong = await act(agents.ada, ticketId, [{ type: "setFields", fields: { ship: "tank" } }]);
    expect(issuePaths(wrong)).toEqual(["/actions/0/fields/ship"]);
  });
});
