// The demo inbox `make up` seeds (scripts/demo-tickets.ts), run against the real stack with the
// real demo tenant: every ticket is created through the public API and worked on by the demo
// agents, so the inbox holds tickets in every state, both games and several languages and tiers;
// and the same seed gives the same work.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoTickets } from "../../../scripts/demo-tickets.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

interface DemoTenantFile {
  games: { ref: string; languages: string[] }[];
  users: { ref: string; role?: string; games?: string[] }[];
}

interface ListedTicket {
  id: string;
  gameId: string;
  status: string;
  language: string;
  metadata: { playerTier?: number };
}

const file = JSON.parse(readFileSync(new URL("../../../scripts/demo-tenant.json", import.meta.url), "utf8")) as DemoTenantFile;

describe("the demo inbox", () => {
  let stack: Stack;
  let tenant: TenantResult;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await stack.applyTenant(file);
  }, 120_000);
  afterAll(() => stack?.stop());

  it("seeds tickets in every state through the API, in both games, several languages and tiers", async () => {
    const agents = file.users.filter((user) => user.role === "agent").map((user) => ({ id: tenant.users[user.ref]!, games: user.games ?? [] }));
    const games = file.games.map((game) => ({ ref: game.ref, id: tenant.games[game.ref]!.id, languages: game.languages }));
    const seed = { gateway: stack.url, apiKey: tenant.apiKeys.demo!, games, agents };
    const result = await seedDemoTickets(seed, { count: 60, concurrency: 4 });
    expect(result.tickets).toBe(60);
    expect(result.actions).toBeGreaterThan(30);

    const listed = await stack.request("/tickets?limit=1000", { key: tenant.apiKeys.demo! });
    const tickets = (listed.body as { tickets: ListedTicket[] }).tickets;
    expect(tickets).toHaveLength(60);
    expect(new Set(tickets.map((ticket) => ticket.status))).toEqual(new Set(["new", "assigned", "waiting", "on_hold", "closed"]));
    expect(new Set(tickets.map((ticket) => ticket.gameId)).size).toBe(2);
    expect(new Set(tickets.map((ticket) => ticket.language)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(tickets.map((ticket) => ticket.metadata.playerTier)).size).toBeGreaterThanOrEqual(2);

    // The API refuses an assignee or author without access to the ticket's game, so the
    // seeding's success shows the agents were chosen per game. A waiting ticket holds the
    // agent's question in the ticket's language.
    const waiting = tickets.find((ticket) => ticket.status === "waiting")!;
    const events = await stack.request(`/tickets/${waiting.id}/events`, { key: tenant.apiKeys.demo! });
    const messages = (events.body as { events: { type: string; language?: string }[] }).events.filter((event) => event.type === "AGENT_MESSAGE");
    expect(messages).toHaveLength(1);
    expect(messages[0]!.language).toBe(waiting.language);

    const again = await seedDemoTickets(seed, { count: 60, concurrency: 2 });
    expect(again.actions).toBe(result.actions);
  }, 120_000);
});
