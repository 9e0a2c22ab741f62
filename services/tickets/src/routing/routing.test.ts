import { describe, expect, it } from "vitest";
import { canHandle, chooseAgent, compareQueued, planAssignments, skillTagsOf, type QueuedTicket, type RoutingAgent } from "./routing.ts";

const agent = (userId: string, over: Partial<RoutingAgent> = {}): RoutingAgent => ({ userId, skills: [], languages: [], capacity: 5, openAssigned: 0, lastAssignedAt: null, ...over });
const ticket = (id: string, over: Partial<QueuedTicket> = {}): QueuedTicket => ({ id, language: "en", skillTags: [], tier: null, createdAt: new Date("2026-12-01T10:00:00Z"), excludedUserId: null, ...over });
const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 10, minute));
const NOW = new Date("2026-12-01T12:00:00Z");

describe("routing eligibility", () => {
  it("needs every skill tag of the ticket among the agent's skills", () => {
    expect(canHandle(agent("a", { skills: ["billing"] }), ticket("t", { skillTags: ["billing"] }))).toBe(true);
    expect(canHandle(agent("a", { skills: ["billing"] }), ticket("t", { skillTags: ["billing", "refunds"] }))).toBe(false);
    expect(canHandle(agent("a"), ticket("t", { skillTags: [] }))).toBe(true);
  });

  it("needs the ticket's language among the agent's, where the agent names any", () => {
    expect(canHandle(agent("a", { languages: ["de"] }), ticket("t", { language: "en" }))).toBe(false);
    expect(canHandle(agent("a", { languages: ["de", "en"] }), ticket("t", { language: "en" }))).toBe(true);
    expect(canHandle(agent("a", { languages: [] }), ticket("t", { language: "ja" }))).toBe(true);
  });

  it("keeps only the ticket's tags that are skill tags, once", () => {
    expect(skillTagsOf(["bug", "billing", "billing"], new Set(["billing", "refunds"]))).toEqual(["billing"]);
  });
});

describe("choosing an agent", () => {
  it("skips agents at capacity", () => {
    expect(chooseAgent(ticket("t"), [agent("a", { capacity: 1, openAssigned: 1 }), agent("b", { capacity: 2, openAssigned: 1 })])?.userId).toBe("b");
    expect(chooseAgent(ticket("t"), [agent("a", { capacity: 0 })])).toBeUndefined();
  });

  it("takes the one routing assigned longest ago, never-assigned first", () => {
    const agents = [agent("a", { lastAssignedAt: at(5) }), agent("b", { lastAssignedAt: at(1) }), agent("c", { lastAssignedAt: at(3) })];
    expect(chooseAgent(ticket("t"), agents)?.userId).toBe("b");
    expect(chooseAgent(ticket("t"), [...agents, agent("d")])?.userId).toBe("d");
  });

  it("passes over the agent who put the ticket back while someone else can take it", () => {
    expect(chooseAgent(ticket("t", { excludedUserId: "a" }), [agent("a"), agent("b", { lastAssignedAt: at(9) })])?.userId).toBe("b");
    expect(chooseAgent(ticket("t", { excludedUserId: "a" }), [agent("a"), agent("b", { languages: ["de"] })])?.userId).toBe("a");
  });
});

describe("planning the queue", () => {
  it("orders higher tiers first, then the oldest; no tier last", () => {
    const queue = [ticket("old-none", { createdAt: at(0) }), ticket("new-2", { tier: 2, createdAt: at(9) }), ticket("old-2", { tier: 2, createdAt: at(1) }), ticket("t-5", { tier: 5, createdAt: at(30) })];
    expect([...queue].sort(compareQueued).map((t) => t.id)).toEqual(["t-5", "old-2", "new-2", "old-none"]);
  });

  it("deals the queue round-robin and never beyond a capacity", () => {
    const queue = ["1", "2", "3", "4", "5"].map((id, i) => ticket(id, { createdAt: at(i) }));
    const plan = planAssignments(queue, [agent("a", { capacity: 2 }), agent("b", { capacity: 2, openAssigned: 1 })], NOW);
    expect(plan).toEqual([
      { ticketId: "1", userId: "a" },
      { ticketId: "2", userId: "b" },
      { ticketId: "3", userId: "a" },
    ]);
  });

  it("lets a ticket nobody can take wait without holding up the ones behind it", () => {
    const queue = [ticket("de", { language: "de", createdAt: at(0) }), ticket("en", { createdAt: at(1) })];
    expect(planAssignments(queue, [agent("a", { languages: ["en"] })], NOW)).toEqual([{ ticketId: "en", userId: "a" }]);
  });
});
