// Canned responses through the agent API over the real stack: an admin writes them (an agent may
// not; CSRF; a bad placeholder named at its path), an agent lists those of their games, gets them
// filled in for a ticket in the ticket's language, and sends one with its actions; retired ones
// are gone; a ticket outside the agent's games is a 404.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { dana: `dana-${suffix}@studio.example`, ada: `ada-${suffix}@studio.example` };

type Agent = SignedInAgent;

let stack: Stack;
let tenant: TenantResult;
const agents = {} as Record<keyof typeof emails, Agent>;
const origin = () => new URL(stack.url).origin;
const signIn = (email: string) => signInAgent(stack, email, PASSWORD);

const write = (agent: Agent, method: string, path: string, json?: unknown, csrf = agent.csrfToken) =>
  stack.request(path, { method, headers: { cookie: agent.cookie, origin: origin(), "x-csrf-token": csrf }, ...(json !== undefined ? { json } : {}) });
const read = (agent: Agent, path: string) => stack.request(path, { headers: { cookie: agent.cookie } });

async function createTicket(gameRef: "galaxy" | "farm", language: string): Promise<string> {
  const response = await stack.request("/tickets", {
    method: "POST",
    key: tenant.apiKeys.main!,
    json: { gameId: tenant.games[gameRef]!.id, message: "Mein Schiff ist weg", language, channels: ["email"], metadata: { player: { id: `p-${randomUUID().slice(0, 6)}`, name: "Pat", email: "pat@example.com" } } },
  });
  expect(response.status, response.text).toBe(200);
  return (response.body as { ticketId: string }).ticketId;
}

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Canned Studio", primaryLanguage: "en" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Pixel Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    tags: [{ name: "bug", game: null }, { name: "crash", game: "galaxy", isSkill: true }, { name: "lost-crops", game: "farm" }],
    users: [
      { ref: "dana", name: "Dana Admin", email: emails.dana, role: "admin", displayName: "Dana" },
      { ref: "ada", name: "Ada Agent", email: emails.ada, role: "agent", displayName: "Ada", games: ["galaxy"] },
    ],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  agents.dana = await signIn(emails.dana);
  agents.ada = await signIn(emails.ada);
}, 180_000);
afterAll(() => stack?.stop());

const greeting = {
  name: "Greeting",
  texts: { en: "Hello {{player.name}}, {{agent.name}} here about #{{ticket.number}} in {{game.name}}.", de: "Hallo {{player.name}}, hier ist {{agent.name}} zu #{{ticket.number}} in {{game.name}}." },
  actions: { addTags: ["bug"], status: "waiting" },
};

describe("canned responses through the agent API", () => {
  let greetingId: string;

  it("are written by an admin only, with CSRF, and a bad placeholder is named at its path", async () => {
    const created = await write(agents.dana, "POST", "/agent-api/canned-responses", greeting);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: "Greeting", gameId: null, texts: greeting.texts, actions: { addTags: ["bug"], status: "waiting", resolve: false }, createdBy: agents.dana.userId });
    greetingId = (created.body as { id: string }).id;
    const farmOnly = await write(agents.dana, "POST", "/agent-api/canned-responses", { gameId: tenant.games.farm!.id, name: "Crops", texts: { en: "Your crops are back." }, actions: { resolve: true } });
    expect(farmOnly.status, farmOnly.text).toBe(201);

    expect((await write(agents.ada, "POST", "/agent-api/canned-responses", { name: "Mine", texts: { en: "x" } })).status).toBe(403);
    expect((await write(agents.dana, "POST", "/agent-api/canned-responses", { name: "No CSRF", texts: { en: "x" } }, "wrong")).status).toBe(403);
    const bad = await write(agents.dana, "POST", "/agent-api/canned-responses", { name: "Bad", texts: { en: "Hi {{player.age}}" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ details: { issues: [{ path: "/texts/en" }] } });
    expect((await write(agents.dana, "POST", "/agent-api/canned-responses", { name: "greeting", texts: { en: "again" } })).status).toBe(409);
  });

  it("are listed for the agent's games only", async () => {
    const forAda = (await read(agents.ada, "/agent-api/canned-responses")).body as { responses: { name: string }[] };
    expect(forAda.responses.map((response) => response.name)).toEqual(["Greeting"]);
    const forDana = (await read(agents.dana, "/agent-api/canned-responses")).body as { responses: { name: string }[] };
    expect(forDana.responses.map((response) => response.name)).toEqual(["Crops", "Greeting"]);
  });

  it("are filled in for a ticket in its language, and sent with their actions", async () => {
    const ticketId = await createTicket("galaxy", "de");
    const listed = await read(agents.ada, `/agent-api/tickets/${ticketId}/canned-responses`);
    expect(listed.status, listed.text).toBe(200);
    const runningId = ((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: { runningId: number }[] }).tickets[0]!.runningId;
    expect(listed.body).toEqual({
      responses: [{ id: greetingId, gameId: null, name: "Greeting", language: "de", text: `Hallo Pat, hier ist Ada zu #${runningId} in Galaxy Raiders.`, actions: { addTags: ["bug"], status: "waiting", resolve: false } }],
    });
    const [canned] = (listed.body as { responses: { text: string }[] }).responses;
    const sent = await write(agents.ada, "POST", `/agent-api/tickets/${ticketId}/actions`, {
      actions: [{ type: "sendMessage", message: canned!.text }, { type: "addTags", tagNames: ["bug"] }, { type: "setStatus", status: "waiting" }],
    });
    expect(sent.status, sent.text).toBe(200);
    const view = (await read(agents.ada, `/agent-api/tickets/${ticketId}`)).body as { ticket: { status: string; tags: string[] }; conversation: { event: { type: string; message?: string } }[] };
    expect(view.ticket).toMatchObject({ status: "waiting", tags: ["bug"] });
    expect(view.conversation.at(-1)!.event).toMatchObject({ type: "AGENT_MESSAGE", message: canned!.text });

    const farmTicket = await createTicket("farm", "en");
    expect((await read(agents.ada, `/agent-api/tickets/${farmTicket}/canned-responses`)).status).toBe(404);
    const forFarm = (await read(agents.dana, `/agent-api/tickets/${farmTicket}/canned-responses`)).body as { responses: { name: string; language: string }[] };
    expect(forFarm.responses.map((response) => [response.name, response.language])).toEqual([["Crops", "en"], ["Greeting", "en"]]);
  });

  it("are changed and retired by an admin; a retired one is gone", async () => {
    const changed = await write(agents.dana, "PUT", `/agent-api/canned-responses/${greetingId}`, { ...greeting, name: "Hello" });
    expect(changed.status, changed.text).toBe(200);
    expect((await write(agents.ada, "DELETE", `/agent-api/canned-responses/${greetingId}`)).status).toBe(403);
    expect((await write(agents.dana, "DELETE", `/agent-api/canned-responses/${greetingId}`)).status).toBe(204);
    expect((await write(agents.dana, "DELETE", `/agent-api/canned-responses/${greetingId}`)).status).toBe(404);
    const forAda = (await read(agents.ada, "/agent-api/canned-responses")).body as { responses: unknown[] };
    expect(forAda.responses).toEqual([]);
    const audit = (await read(agents.dana, "/agent-api/audit-log?limit=20")).body as { entries: { action: string }[] };
    expect(audit.entries.map((entry) => entry.action).filter((action) => action.startsWith("canned_response."))).toEqual([
      "canned_response.retired", "canned_response.updated", "canned_response.created", "canned_response.created",
    ]);
  });
});

describe("the company's people and tags for the console", () => {
  it("lists the active users with their display names and games, and the tags of the agent's games only", async () => {
    const users = await read(agents.ada, "/agent-api/users");
    expect(users.status, users.text).toBe(200);
    expect(users.body).toEqual({
      users: [
        { id: agents.ada.userId, name: "Ada Agent", displayName: "Ada", role: "agent", gameIds: [tenant.games.galaxy!.id], skills: [] },
        { id: agents.dana.userId, name: "Dana Admin", displayName: "Dana", role: "admin", gameIds: [tenant.games.galaxy!.id, tenant.games.farm!.id], skills: [] },
      ],
    });
    expect(JSON.stringify(users.body)).not.toContain("@studio.example");
    const tags = (await read(agents.ada, "/agent-api/tags")).body as { tags: { name: string; gameId: string | null; isSkill: boolean }[] };
    expect(tags.tags.map((tag) => [tag.name, tag.gameId, tag.isSkill]).sort()).toEqual([["bug", null, false], ["crash", tenant.games.galaxy!.id, true]]);
    const all = (await read(agents.dana, "/agent-api/tags")).body as { tags: { name: string }[] };
    expect(all.tags.map((tag) => tag.name).sort()).toEqual(["bug", "crash", "lost-crops"]);
  });
});
