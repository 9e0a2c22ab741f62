// Outbreaks end to end (docs/automation.md, "Outbreaks"): an admin turns detection on; players
// write through the web support page; a burst of alike tickets (different wording) opens exactly
// one incident, delivered as the incident.opened webhook, while other topics stay out; a later
// alike ticket joins it; an admin's rule with the outbreak trigger tags each of the incident's
// tickets once (those it opened with and those that joined); an agent answers every ticket with one canned response and each player
// reads the reply through the player API; closing; the game's announcement; scope and roles.
import { randomUUID } from "node:crypto";
import { startWebhookReceiver, type WebhookReceiver } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emailOf = (name: string) => `${name}-${suffix}@outbreaks.example`;

let stack: Stack;
let receiver: WebhookReceiver;
let tenant: TenantResult;
const agents = {} as Record<"dana" | "ada" | "bo", SignedInAgent>;

/** Different wordings of one problem (pairwise similarity 0.74–0.92). */
const BURST = [
  "Can't connect to the server since today's update, error 503 on login",
  "Since the update today I can't connect to the server, login gives error 503",
  "error 503 when I try to login, can't connect to server after the update",
  "Hi, after today's update the game can't connect to the server (error 503 at login)",
  "I can't connect to the server after the update. Login fails with error 503!",
];
const LATE = "can't connect to server, error 503 on login since the update, please fix";
/** Other topics, one close to it (a crash since the update: similarity about 0.3). */
const OTHERS = ["I was charged twice for the gem pack, please refund", "Player DarkKnight is using an aimbot in ranked matches", "The game crashes on the loading screen since the update"];

interface Player {
  name: string;
  ask(path: string, json?: unknown): ReturnType<Stack["request"]>;
}

/** A player of the game on the web support page (a session of their own). */
async function player(game: "arena" | "farm", name: string): Promise<Player> {
  const token = tenant.games[game]!.environments[`${game}-prod`]!.token;
  const created = await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: `web-${randomUUID()}`, name } } });
  expect(created.status, created.text).toBe(200);
  const { sessionCode } = created.body as { sessionCode: string };
  return { name, ask: (path, json) => stack.request(path, { method: json === undefined ? "GET" : "POST", json, headers: { authorization: `Session ${sessionCode}` } }) };
}

async function write(someone: Player, message: string): Promise<string> {
  const response = await someone.ask("/player-api/tickets", { message });
  expect(response.status, response.text).toBe(200);
  return (response.body as { ticketId: string }).ticketId;
}

interface Incident {
  id: string;
  gameId: string;
  title: string;
  status: string;
  ticketCount: number;
}

const incidents = async (agent: SignedInAgent, query = ""): Promise<Incident[]> => {
  const response = await agentRead(stack, agent, `/agent-api/incidents${query}`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { incidents: Incident[] }).incidents;
};
const incident = async (agent: SignedInAgent, id: string) => {
  const response = await agentRead(stack, agent, `/agent-api/incidents/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.body as { incident: Incident; tickets: { id: string }[] };
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({ gateway: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
  tenant = await stack.applyTenant({
    company: { name: `Outbreak ${suffix}`, primaryLanguage: "en" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en", "de"], environments: [{ ref: "arena-prod", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    tags: [{ name: "outage", game: null }],
    users: [
      { ref: "dana", name: "Dana", email: emailOf("dana"), role: "admin" },
      { ref: "ada", name: "Ada", email: emailOf("ada"), role: "agent", displayName: "Ada", games: ["arena"] },
      { ref: "bo", name: "Bo", email: emailOf("bo"), role: "agent", games: ["farm"] },
    ],
  });
  for (const name of ["dana", "ada", "bo"] as const) {
    await stack.admin(["users", "set-password", "--email", emailOf(name)], `${PASSWORD}\n`);
    agents[name] = await signInAgent(stack, emailOf(name), PASSWORD);
  }
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
});

describe("outbreaks through the real stack", () => {
  it("are set by admins only, off by default, each value checked at its path", async () => {
    const defaults = await agentRead(stack, agents.dana, "/agent-api/settings/outbreaks");
    expect(defaults.status, defaults.text).toBe(200);
    expect(defaults.body).toEqual({ enabled: false, minTickets: 10, windowMinutes: 30, similarity: 0.6 });
    expect((await agentRead(stack, agents.ada, "/agent-api/settings/outbreaks")).status).toBe(403);
    expect((await agentWrite(stack, agents.ada, "PUT", "/agent-api/settings/outbreaks", { enabled: true, minTickets: 5, windowMinutes: 30, similarity: 0.6 })).status).toBe(403);
    const bad = await agentWrite(stack, agents.dana, "PUT", "/agent-api/settings/outbreaks", { enabled: true, minTickets: 2, windowMinutes: 30, similarity: 1.5 });
    expect(bad.status, bad.text).toBe(400);
    expect((bad.body as { details: { issues: { path: string }[] } }).details.issues.map((issue) => issue.path)).toEqual(["/minTickets", "/similarity"]);
    expect((await agentRead(stack, agents.dana, "/agent-api/settings/outbreaks")).body).toMatchObject({ enabled: false });

    const set = await agentWrite(stack, agents.dana, "PUT", "/agent-api/settings/outbreaks", { enabled: true, minTickets: 5, windowMinutes: 30, similarity: 0.6 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ enabled: true, minTickets: 5, windowMinutes: 30, similarity: 0.6 });
  });

  let incidentId: string;
  const burstTickets: string[] = [];
  const burstPlayers: Player[] = [];
  let others: string[] = [];

  it("opens exactly one incident for a burst of alike tickets, sends incident.opened, keeps other topics out, and a later alike ticket joins", async () => {
    const hook = await stack.request("/webhooks", { method: "POST", key: tenant.apiKeys.main!, json: { url: receiver.url, eventTypes: ["incident.opened"], gameIds: [tenant.games.arena!.id] } });
    expect(hook.status, hook.text).toBe(200);
    const rule = await agentWrite(stack, agents.dana, "POST", "/agent-api/settings/rules", { name: "Outage", trigger: { type: "outbreak" }, actions: [{ type: "addTags", tagNames: ["outage"] }] });
    expect(rule.status, rule.text).toBe(201);
    const ruleId = (rule.body as { id: string; trigger: unknown }).id;
    expect((rule.body as { trigger: unknown }).trigger).toEqual({ type: "outbreak" });

    others = [];
    for (const [index, text] of OTHERS.entries()) others.push(await write(await player("arena", `Other ${index}`), text));
    // The same words in another game are not this game's outbreak.
    await write(await player("farm", "Farmer"), BURST[0]!);
    for (const [index, text] of BURST.entries()) {
      const someone = await player("arena", `Player ${index}`);
      burstPlayers.push(someone);
      burstTickets.push(await write(someone, text));
    }

    await eventually(async () => (await incidents(agents.ada)).length > 0, 20_000);
    const open = await incidents(agents.ada);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ gameId: tenant.games.arena!.id, status: "open", ticketCount: BURST.length, title: BURST[0] });
    incidentId = open[0]!.id;
    const view = await incident(agents.ada, incidentId);
    expect(view.tickets.map((ticket) => ticket.id)).toEqual(burstTickets);

    await eventually(async () => receiver.received.some((request) => request.body.includes(incidentId)), 30_000);
    const delivered = receiver.received.filter((request) => request.body.includes('"incident.opened"'));
    expect(delivered).toHaveLength(1);
    expect(JSON.parse(delivered[0]!.body)).toMatchObject({
      type: "incident.opened",
      data: { incidentId, gameId: tenant.games.arena!.id, title: BURST[0], ticketIds: burstTickets },
    });

    const someone = await player("arena", "Late");
    burstPlayers.push(someone);
    const late = await write(someone, LATE);
    burstTickets.push(late);
    const unrelated = await write(await player("arena", "Unrelated"), "How do I change my username?");
    await eventually(async () => (await incident(agents.ada, incidentId)).tickets.length === BURST.length + 1, 20_000);
    expect((await incident(agents.ada, incidentId)).tickets.map((ticket) => ticket.id)).toEqual(burstTickets);
    // Detection handles tickets in order of their events: the unrelated one, created after the
    // late one, has been decided once an alike ticket written after it has joined.
    const after = await write(await player("arena", "After"), LATE.replace("please fix", "thanks"));
    burstTickets.push(after);
    await eventually(async () => (await incident(agents.ada, incidentId)).tickets.length === BURST.length + 2, 20_000);
    const linked = (await incident(agents.ada, incidentId)).tickets.map((ticket) => ticket.id);
    for (const id of [...others, unrelated]) expect(linked).not.toContain(id);
    // Still one incident, and no second webhook.
    expect(await incidents(agents.ada)).toHaveLength(1);
    expect(receiver.received.filter((request) => request.body.includes('"incident.opened"'))).toHaveLength(1);

    // The outbreak rule ran once on each ticket of the incident, and on no other.
    const runs = async () => {
      const response = await agentRead(stack, agents.dana, `/agent-api/settings/rule-runs?ruleId=${ruleId}&limit=200`);
      expect(response.status, response.text).toBe(200);
      return (response.body as { runs: { ticketId: string; trigger: string; outcome: string }[] }).runs;
    };
    await eventually(async () => (await runs()).length >= burstTickets.length, 20_000);
    const ran = await runs();
    expect(ran.map((run) => run.ticketId).sort()).toEqual([...burstTickets].sort());
    for (const run of ran) expect(run).toMatchObject({ trigger: "outbreak", outcome: "applied" });
    const tagsOf = async (ticketId: string) => ((await agentRead(stack, agents.ada, `/agent-api/tickets/${ticketId}`)).body as { ticket: { tags: string[] } }).ticket.tags;
    for (const ticketId of burstTickets) expect(await tagsOf(ticketId), ticketId).toEqual(["outage"]);
    for (const ticketId of [...others, unrelated]) expect(await tagsOf(ticketId), ticketId).toEqual([]);
  });

  it("is the agent's games' only: another game's agent neither lists nor reads it", async () => {
    expect(await incidents(agents.bo)).toEqual([]);
    expect((await agentRead(stack, agents.bo, `/agent-api/incidents/${incidentId}`)).status).toBe(404);
    expect((await agentWrite(stack, agents.bo, "POST", `/agent-api/incidents/${incidentId}/close`)).status).toBe(404);
    expect((await agentRead(stack, agents.ada, `/agent-api/incidents/${randomUUID()}`)).status).toBe(404);
  });

  it("answers every ticket at once with a canned response, which each player reads through the player API", async () => {
    const canned = await agentWrite(stack, agents.dana, "POST", "/agent-api/canned-responses", {
      name: `Outage ${suffix}`,
      texts: { en: "Hi {{player.name}}, the login servers are back: please restart the game. {{agent.name}}" },
      actions: { addTags: ["outage"] },
    });
    expect(canned.status, canned.text).toBe(201);
    const cannedId = (canned.body as { id: string }).id;
    expect((await agentWrite(stack, agents.ada, "POST", `/agent-api/incidents/${incidentId}/answer`, { cannedResponseId: randomUUID() })).status).toBe(404);

    // A ticket resolved meanwhile is left alone.
    const resolved = burstTickets[1]!;
    expect((await agentWrite(stack, agents.ada, "POST", `/agent-api/tickets/${resolved}/actions`, { actions: [{ type: "resolveTicket" }] })).status).toBe(200);

    const answered = await agentWrite(stack, agents.ada, "POST", `/agent-api/incidents/${incidentId}/answer`, { cannedResponseId: cannedId });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toEqual({ answered: burstTickets.filter((id) => id !== resolved), skipped: [resolved], failed: [] });

    for (const [index, ticketId] of burstTickets.entries()) {
      const someone = burstPlayers[index];
      if (!someone) continue;
      const events = (await someone.ask(`/player-api/tickets/${ticketId}/events`)).body as { events: { type: string; message?: string }[] };
      if (ticketId === resolved) {
        expect(events.events.map((event) => event.type)).not.toContain("AGENT_MESSAGE");
        continue;
      }
      expect(events.events.map((event) => event.type)).toEqual(["PLAYER_MESSAGE", "AGENT_MESSAGE"]);
      expect(events.events[1]!.message).toBe(`Hi ${someone.name}, the login servers are back: please restart the game. Ada`);
    }
    const view = await agentRead(stack, agents.ada, `/agent-api/tickets/${burstTickets[0]}`);
    expect((view.body as { ticket: { tags: string[] } }).ticket.tags).toContain("outage");
  });

  it("publishes the game's announcement (admins) and closes; closed, it takes no new tickets", async () => {
    const announcement = { shortContent: { en: "Login servers are down: we are on it." } };
    expect((await agentWrite(stack, agents.ada, "POST", `/agent-api/incidents/${incidentId}/announcement`, announcement)).status).toBe(403);
    const published = await agentWrite(stack, agents.dana, "POST", `/agent-api/incidents/${incidentId}/announcement`, announcement);
    expect(published.status, published.text).toBe(200);
    expect(published.body).toMatchObject({ scope: "game", gameId: tenant.games.arena!.id, shortContent: announcement.shortContent });

    const closed = await agentWrite(stack, agents.ada, "POST", `/agent-api/incidents/${incidentId}/close`);
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body).toMatchObject({ id: incidentId, status: "closed", closedByUserId: agents.ada.userId });
    expect(await incidents(agents.ada)).toEqual([]);
    expect((await incidents(agents.ada, "?includeClosed=true")).map((row) => row.id)).toEqual([incidentId]);

    // Alike tickets after the close do not join it: they open a new incident of their own.
    const again: string[] = [];
    for (const [index, text] of BURST.entries()) again.push(await write(await player("arena", `Again ${index}`), text));
    await eventually(async () => (await incidents(agents.ada)).length === 1, 20_000);
    const [second] = await incidents(agents.ada);
    expect(second!.id).not.toBe(incidentId);
    expect((await incident(agents.ada, second!.id)).tickets.map((ticket) => ticket.id)).toEqual(again);
    expect((await incident(agents.ada, incidentId)).tickets).toHaveLength(burstTickets.length);
  });
});
