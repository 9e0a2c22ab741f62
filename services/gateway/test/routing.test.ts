// Routing end to end (docs/automation.md): tickets created through the public API are assigned
// by the tickets service's routing to agents who signed in through the real gateway and said
// they are available; skills, languages, capacity, presence, round-robin, tier order, re-queue
// when an agent goes away, "unassign for automatic assignment", and two tickets replicas racing.
// Each scenario has a company of its own, so that one's loads and turns do not leak into another.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { eventually, issuePaths, startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

interface UserSpec {
  skills?: string[];
  languages?: string[];
  capacity?: number;
  role?: "admin" | "agent";
}

interface Scenario {
  tenant: TenantResult;
  agents: Record<string, SignedInAgent>;
  /** Creates a ticket of the game through the public API; answers its id. */
  ticket(game: string, options?: { language?: string; tags?: string[]; tier?: number }): Promise<string>;
  /** The ticket's assignee as the API shows it. */
  assignee(ticketId: string): Promise<string | null>;
}

/**
 * A company with games "arena" and "second" (routing on) and "quiet" (off), the skill tag "billing", and the
 * users given, each signed in, plus an admin "watcher" who stays away and reads the tickets'
 * assignees (the agent view has them; the public projection does not).
 */
async function scenario(given: Record<string, UserSpec>): Promise<Scenario> {
  const users: Record<string, UserSpec> = { ...given, watcher: { role: "admin", capacity: 0 } };
  const suffix = randomUUID().slice(0, 8);
  const emailOf = (name: string) => `${name}-${suffix}@routing.example`;
  const tenant = await stack.applyTenant({
    company: { name: `Routing ${suffix}` },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en", "de"], routing: true, environments: [{ ref: "arena-prod", name: "production" }] },
      { ref: "second", name: "Second", slug: `second-${suffix}`, languages: ["en"], routing: true, environments: [{ ref: "second-prod", name: "production" }] },
      { ref: "quiet", name: "Quiet", slug: `quiet-${suffix}`, languages: ["en"], environments: [{ ref: "quiet-prod", name: "production" }] },
    ],
    tags: [{ name: "billing", game: null, isSkill: true }, { name: "bug", game: null }],
    users: Object.entries(users).map(([name, spec]) => ({
      ref: name, name, email: emailOf(name), role: spec.role ?? "agent", ...(spec.role === "admin" ? {} : { games: ["arena", "second", "quiet"] }),
      ...(spec.skills ? { skills: spec.skills } : {}), ...(spec.languages ? { languages: spec.languages } : {}), ...(spec.capacity !== undefined ? { capacity: spec.capacity } : {}),
    })),
  });
  const agents: Record<string, SignedInAgent> = {};
  for (const name of Object.keys(users)) {
    await stack.admin(["users", "set-password", "--email", emailOf(name)], `${PASSWORD}\n`);
    agents[name] = await signInAgent(stack, emailOf(name), PASSWORD);
  }
  return {
    tenant,
    agents,
    async ticket(game, options = {}) {
      const response = await stack.request("/tickets", {
        method: "POST",
        key: tenant.apiKeys.main!,
        json: {
          gameId: tenant.games[game]!.id,
          message: `Routing case ${randomUUID()}`,
          language: options.language ?? "en",
          channels: ["email"],
          metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example`, ...(options.tier !== undefined ? { tier: options.tier } : {}) }, ...(options.tags ? { tags: options.tags } : {}) },
        },
      });
      expect(response.status, response.text).toBe(200);
      return (response.body as { ticketId: string }).ticketId;
    },
    async assignee(ticketId) {
      const response = await agentRead(stack, agents.watcher!, `/agent-api/tickets/${ticketId}`);
      expect(response.status, response.text).toBe(200);
      return (response.body as { assigneeId: string | null }).assigneeId;
    },
  };
}

const setAvailable = async (agent: SignedInAgent, available: boolean) => {
  const response = await agentWrite(stack, agent, "PUT", "/agent-api/me/availability", { available });
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual({ available });
};

const act = async (agent: SignedInAgent, ticketId: string, actions: unknown[]) => {
  const response = await agentWrite(stack, agent, "POST", `/agent-api/tickets/${ticketId}/actions`, { actions });
  expect(response.status, response.text).toBe(200);
};

type Change = { at: string; fromUserId: string | null; toUserId: string | null; by: { type: string; id: string | null } };
const history = async (agent: SignedInAgent, ticketId: string): Promise<Change[]> => {
  const response = await agentRead(stack, agent, `/agent-api/tickets/${ticketId}/assignments`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { changes: Change[] }).changes;
};

const assignedTo = async (s: Scenario, ticketId: string, userId: string) => eventually(async () => (await s.assignee(ticketId)) === userId, 15_000);

describe("routing a new ticket", () => {
  it("assigns only an available, signed-in agent with every skill tag and the language, round-robin among equals", async () => {
    const s = await scenario({
      mia: { skills: ["billing"], languages: ["en"] },
      noah: { languages: ["en", "de"] },
      ola: { skills: ["billing"], languages: ["de"] },
      sam: { skills: ["billing"], languages: ["en"] },
    });
    const { mia, noah, ola, sam } = s.agents;
    // Everyone starts away: nothing is assigned until an agent says they are available.
    const early = await s.ticket("arena", { tags: ["bug"] });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await s.assignee(early)).toBeNull();
    const me = (await agentRead(stack, mia!, "/agent-api/me")).body as { user: { available: boolean; languages: string[]; capacity: number } };
    expect(me.user).toMatchObject({ available: false, languages: ["en"], capacity: 10 });

    for (const agent of [mia!, noah!, ola!, sam!]) await setAvailable(agent, true);
    // Signing out of the last session is going away: Sam may not get tickets any more.
    expect((await agentWrite(stack, sam!, "POST", "/agent-api/sign-out")).status).toBe(204);

    // The queued ticket went to one of the two English speakers able to take a "bug" ticket.
    await eventually(async () => [mia!.userId, noah!.userId].includes((await s.assignee(early)) ?? ""), 15_000);
    const first = await s.assignee(early);

    // "billing" is a skill tag: only Mia speaks English and has it (Sam signed out).
    const billing = await s.ticket("arena", { tags: ["billing", "bug"] });
    await assignedTo(s, billing, mia!.userId);
    // German and billing: Ola.
    const german = await s.ticket("arena", { language: "de", tags: ["billing"] });
    await assignedTo(s, german, ola!.userId);

    // Round-robin: with Mia and Noah both able, the one routing assigned longest ago goes first.
    const next = await s.ticket("arena");
    await assignedTo(s, next, noah!.userId);
    const after = await s.ticket("arena");
    await assignedTo(s, after, mia!.userId);
    expect(first).toBeDefined();

    // The history names routing as who assigned it.
    expect(await history(mia!, billing)).toEqual([{ at: expect.any(String), fromUserId: null, toUserId: mia!.userId, by: { type: "system", id: "routing" } }]);

    // A game with routing off keeps its tickets unassigned.
    const quiet = await s.ticket("quiet");
    const marker = await s.ticket("arena");
    await eventually(async () => (await s.assignee(marker)) !== null, 15_000);
    expect(await s.assignee(quiet)).toBeNull();
  }, 90_000);
});

describe("capacity and queue order", () => {
  it("never gives an agent more open tickets than their capacity, hands the queue out highest tier first then oldest when they have room again", async () => {
    const s = await scenario({ mia: { capacity: 1 }, adam: { role: "admin", capacity: 0 } });
    const { mia, adam } = s.agents;
    await setAvailable(adam!, true);
    // Players have tier 1 unless told otherwise.
    const tierOne = await s.ticket("arena", { tier: 1 });
    const tierTwo = await s.ticket("arena", { tier: 2 });
    const tierThree = await s.ticket("arena", { tier: 3 });
    const tierTwoLater = await s.ticket("arena", { tier: 2 });
    // Adam's capacity is 0: available but never given a ticket.
    await new Promise((resolve) => setTimeout(resolve, 800));
    for (const id of [tierOne, tierTwo, tierThree, tierTwoLater]) expect(await s.assignee(id)).toBeNull();

    await setAvailable(mia!, true);
    await assignedTo(s, tierThree, mia!.userId);
    await new Promise((resolve) => setTimeout(resolve, 800));
    for (const id of [tierOne, tierTwo, tierTwoLater]) expect(await s.assignee(id)).toBeNull();

    // Resolving frees a place: the next in order (tier 2, the older one) comes, then the other tier 2.
    await act(mia!, tierThree, [{ type: "resolveTicket" }]);
    await assignedTo(s, tierTwo, mia!.userId);
    await act(mia!, tierTwo, [{ type: "resolveTicket" }]);
    await assignedTo(s, tierTwoLater, mia!.userId);
    expect(await s.assignee(tierOne)).toBeNull();

    // The admin raises Mia's capacity in the team settings: the rest of the queue comes to her.
    const raised = await agentWrite(stack, adam!, "PATCH", `/agent-api/settings/users/${mia!.userId}`, { capacity: 2 });
    expect(raised.status, raised.text).toBe(200);
    expect(raised.body).toMatchObject({ capacity: 2, languages: [], available: true });
    await assignedTo(s, tierOne, mia!.userId);
    // Now full again: a new ticket waits.
    const another = await s.ticket("arena", { tier: 1 });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await s.assignee(another)).toBeNull();
  }, 90_000);
});

describe("an agent going away", () => {
  it("puts their open tickets without an agent reply back in the queue; answered ones stay", async () => {
    const s = await scenario({ mia: { capacity: 5 }, noah: { capacity: 5 } });
    const { mia, noah } = s.agents;
    await setAvailable(mia!, true);
    const answered = await s.ticket("arena");
    await assignedTo(s, answered, mia!.userId);
    const untouched = await s.ticket("arena");
    await assignedTo(s, untouched, mia!.userId);
    await act(mia!, answered, [{ type: "sendMessage", message: "Looking into it." }]);

    await setAvailable(noah!, true);
    await setAvailable(mia!, false);
    await assignedTo(s, untouched, noah!.userId);
    expect(await s.assignee(answered)).toBe(mia!.userId);
    expect((await history(noah!, untouched)).map((change) => [change.toUserId, change.by])).toEqual([
      [mia!.userId, { type: "system", id: "routing" }],
      [null, { type: "system", id: "routing" }],
      [noah!.userId, { type: "system", id: "routing" }],
    ]);
  }, 90_000);
});

describe("unassign for automatic assignment", () => {
  it("gives the ticket to another eligible agent, or back to the same one when nobody else can take it", async () => {
    const s = await scenario({ mia: { languages: ["en"] }, noah: { languages: ["en"] }, ola: { languages: ["de"] } });
    const { mia, noah, ola } = s.agents;
    await setAvailable(mia!, true);
    const ticketId = await s.ticket("arena");
    await assignedTo(s, ticketId, mia!.userId);
    await setAvailable(noah!, true);

    const requeued = await agentWrite(stack, mia!, "POST", `/agent-api/tickets/${ticketId}/requeue`);
    expect(requeued.status, requeued.text).toBe(204);
    await assignedTo(s, ticketId, noah!.userId);
    const changes = await history(mia!, ticketId);
    expect(changes.at(-2)).toMatchObject({ fromUserId: mia!.userId, toUserId: null, by: { type: "user", id: mia!.userId } });
    expect(changes.at(-1)).toMatchObject({ fromUserId: null, toUserId: noah!.userId, by: { type: "system", id: "routing" } });

    // A German ticket only Ola can take comes back to her.
    await setAvailable(ola!, true);
    const german = await s.ticket("arena", { language: "de" });
    await assignedTo(s, german, ola!.userId);
    expect((await agentWrite(stack, ola!, "POST", `/agent-api/tickets/${german}/requeue`)).status).toBe(204);
    await eventually(async () => (await history(ola!, german)).length === 3, 15_000);
    expect(await s.assignee(german)).toBe(ola!.userId);

    // Not in a game with routing off, not on a closed ticket, not outside the user's scope.
    const quiet = await s.ticket("quiet");
    const off = await agentWrite(stack, mia!, "POST", `/agent-api/tickets/${quiet}/requeue`);
    expect(off.status, off.text).toBe(400);
    expect(off.body).toMatchObject({ details: { type: "ROUTING_OFF" } });
    await act(noah!, ticketId, [{ type: "resolveTicket" }]);
    expect((await agentWrite(stack, noah!, "POST", `/agent-api/tickets/${ticketId}/requeue`)).status).toBe(409);
    expect((await agentWrite(stack, noah!, "POST", `/agent-api/tickets/${randomUUID()}/requeue`)).status).toBe(404);
  }, 90_000);
});

describe("settings", () => {
  it("lets an admin turn a game's routing on and set an agent's languages and capacity, refusing bad values with their path", async () => {
    const s = await scenario({ adam: { role: "admin" }, mia: {} });
    const { adam, mia } = s.agents;
    const quietId = s.tenant.games.quiet!.id;
    const bad = await agentWrite(stack, adam!, "PATCH", `/agent-api/settings/users/${mia!.userId}`, { languages: ["en", "en"] });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad)).toContain("/languages/1");
    expect((await agentWrite(stack, adam!, "PATCH", `/agent-api/settings/users/${mia!.userId}`, { capacity: -1 })).status).toBe(400);
    const set = await agentWrite(stack, adam!, "PATCH", `/agent-api/settings/users/${mia!.userId}`, { languages: ["en"], capacity: 3 });
    expect(set.body).toMatchObject({ languages: ["en"], capacity: 3, available: false });

    await setAvailable(mia!, true);
    const waiting = await s.ticket("quiet");
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await s.assignee(waiting)).toBeNull();
    const on = await agentWrite(stack, adam!, "PATCH", `/agent-api/settings/games/${quietId}`, { routingEnabled: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ routingEnabled: true });
    // Turned on, routing takes the game's queue at once.
    await assignedTo(s, waiting, mia!.userId);
    // Agents cannot change it.
    expect((await agentWrite(stack, mia!, "PATCH", `/agent-api/settings/games/${quietId}`, { routingEnabled: false })).status).toBe(403);
  }, 90_000);
});

describe("two tickets replicas", () => {
  // Capacity counts an agent's tickets of every game: passes of two games running at once on two
  // replicas would each see the agents empty without the company's routing lock.
  it("never assign beyond capacity when tickets of two games arrive at once", async () => {
    await stack.startServiceReplica("tickets");
    const s = await scenario({ mia: { capacity: 2 }, noah: { capacity: 2 } });
    const { mia, noah } = s.agents;
    await setAvailable(mia!, true);
    await setAvailable(noah!, true);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => s.ticket(i % 2 === 0 ? "arena" : "second")));
    const assignees = async () => Promise.all(ids.map((id) => s.assignee(id)));
    await eventually(async () => (await assignees()).filter((id) => id !== null).length >= 4, 20_000);
    // Every trigger has had time to run on either replica.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const final = await assignees();
    expect(final.filter((id) => id === mia!.userId)).toHaveLength(2);
    expect(final.filter((id) => id === noah!.userId)).toHaveLength(2);
    expect(final.filter((id) => id === null)).toHaveLength(8);
  }, 90_000);
});
