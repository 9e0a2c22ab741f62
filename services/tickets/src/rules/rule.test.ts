import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import type { Ticket } from "../tickets/ticket.ts";
import { checkRule, conditionsMatch, ruleActor, ruleOfActor, triggerMatches, triggerOf, type RuleInput } from "./rule.ts";

const GAME = "7c1e2d3f-0000-4000-8000-000000000001";
const ticket = (over: Partial<Ticket> = {}): Ticket => ({
  id: "7c1e2d3f-0000-4000-8000-0000000000aa", companyId: "7c1e2d3f-0000-4000-8000-0000000000cc", runningId: 1, gameId: GAME, gameEnvironmentId: GAME,
  servicePlayerId: null, playerId: null, playerName: null, email: null, status: "new", supportSource: null, channels: ["chat"], language: "en", platform: "ios",
  resolutionType: null, csatScore: null, csatReview: null, issueSummary: null, issueResolution: null, followUpTicketId: null, reopenedFromTicketId: null,
  createdAt: new Date(), lastActivityAt: null, tags: [], fields: {}, metadata: {}, assigneeId: null, waitingSince: null, lastPlayerMessageAt: null, ...over,
});
const base = { name: "r", trigger: { type: "ticket_created" }, actions: [{ type: "addTags", tagNames: ["vip"] }] };

function issuesOf(input: RuleInput): string[] {
  try {
    checkRule(input);
  } catch (error) {
    if (isAppError(error) && error.details?.type === "VALIDATION_ERROR") return (error.details.issues as { path: string }[]).map((issue) => issue.path);
    throw error;
  }
  return [];
}

describe("checking a rule", () => {
  it("accepts a whole rule, enabled unless told otherwise", () => {
    const rule = checkRule({ ...base, conditions: [{ type: "text", matches: "refund|chargeback" }, { type: "tier", in: [3], not: true }] });
    expect(rule).toMatchObject({ name: "r", enabled: true, trigger: { type: "ticket_created" }, conditions: [{ type: "text", matches: "refund|chargeback" }, { type: "tier", in: [3], not: true }] });
  });

  it("names every problem by its path", () => {
    expect(issuesOf({ name: " ", trigger: { type: "sla_soon" }, conditions: [{ type: "language", in: ["xx"] }, { type: "text", matches: "(" }, { type: "tags" }], actions: [] })).toEqual([
      "/name", "/trigger/type", "/conditions/0/in/0", "/conditions/1/matches", "/conditions/2/any", "/actions",
    ]);
    expect(issuesOf({ ...base, trigger: { type: "status_changed", to: "done" } })).toEqual(["/trigger/to"]);
    expect(issuesOf({ ...base, actions: [{ type: "setStatus", status: "closed" }, { type: "sendMessage", message: "hi", userId: GAME }, { type: "explode" }] })).toEqual([
      "/actions/1/userId", "/actions/2/type",
    ]);
    expect(issuesOf({ ...base, actions: [{ type: "setStatus", status: "closed" }] })).toEqual(["/actions/0/status"]);
    expect(issuesOf({ ...base, conditions: [{ type: "text", contains: "a", matches: "b" }] })).toEqual(["/conditions/0"]);
  });
});

describe("matching", () => {
  it("holds when every condition holds, a negated one when it does not", () => {
    const t = ticket({ tags: ["bug"], language: "de", channels: ["email"], fields: { platform: "ios", codes: ["a1", "b2"] }, metadata: { playerTier: 3 } });
    const yes = (conditions: unknown[], text = "") => conditionsMatch(checkRule({ ...base, conditions }).conditions, { ticket: t, text });
    expect(yes([])).toBe(true);
    expect(yes([{ type: "game", in: [GAME.toUpperCase()] }, { type: "language", in: ["de", "en"] }, { type: "channel", in: ["email"] }, { type: "tier", in: [3] }])).toBe(true);
    expect(yes([{ type: "tier", in: [1] }])).toBe(false);
    expect(yes([{ type: "tags", any: ["bug", "crash"] }, { type: "tags", any: ["vip"], not: true }])).toBe(true);
    expect(yes([{ type: "field", key: "codes", in: ["b2"] }, { type: "field", key: "platform", in: ["ios"] }])).toBe(true);
    expect(yes([{ type: "field", key: "missing", in: ["x"] }])).toBe(false);
    expect(yes([{ type: "metadata", key: "playerTier", in: ["3"] }])).toBe(true);
    expect(yes([{ type: "text", contains: "RÜCKERSTATTUNG" }], "Ich will eine Rückerstattung")).toBe(true);
    expect(yes([{ type: "text", matches: "refund|charge ?back" }], "a CHARGEBACK please")).toBe(true);
    expect(yes([{ type: "text", matches: "^refund" }], "no refund")).toBe(false);
  });

  it("matches a pattern that backtracking engines take exponential time on, in linear time", () => {
    const started = performance.now();
    const matched = conditionsMatch(checkRule({ ...base, conditions: [{ type: "text", matches: "^(a+)+$" }] }).conditions, { ticket: ticket(), text: `${"a".repeat(5000)}b` });
    expect(matched).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("triggers", () => {
  const actor = { type: "user", id: GAME };
  const ref = { ticketId: ticket().id, runningId: 1, gameId: GAME };
  const envelope = { id: "e1", version: 1, occurredAt: "2026-12-01T00:00:00Z", companyId: ticket().companyId };

  it("reads the moment from each triggering event, and nothing from the others", () => {
    expect(triggerOf({ ...envelope, type: "tickets.ticket.status_changed", data: { ...ref, from: "new", to: "waiting", actor } } as never)).toMatchObject({ trigger: "status_changed", status: "waiting", ticketId: ref.ticketId, eventId: "e1" });
    expect(triggerOf({ ...envelope, type: "tickets.ticket.message_added", data: { ...ref, eventId: "m", type: "AGENT_MESSAGE", message: "x", language: "en", attachments: [], actor } } as never)).toBeUndefined();
    expect(triggerOf({ ...envelope, type: "tickets.ticket.message_added", data: { ...ref, eventId: "m", type: "PLAYER_MESSAGE", message: "x", language: "en", attachments: [], actor } } as never)).toMatchObject({ trigger: "player_message", message: "x", messageEventId: "m" });
    expect(triggerOf({ ...envelope, type: "tickets.ticket.tags_changed", data: { ...ref, added: [], removed: [], tags: [], actor } } as never)).toBeUndefined();
  });

  it("filters status changes by the status reached", () => {
    const moment = { trigger: "status_changed" as const, eventId: "e", companyId: "c", ticketId: "t", actor, status: "waiting" };
    expect(triggerMatches({ type: "status_changed", to: "waiting" }, moment)).toBe(true);
    expect(triggerMatches({ type: "status_changed", to: "closed" }, moment)).toBe(false);
    expect(triggerMatches({ type: "status_changed" }, moment)).toBe(true);
    expect(triggerMatches({ type: "ticket_closed" }, moment)).toBe(false);
  });

  it("names the rule in its actor, and reads it back", () => {
    expect(ruleOfActor(ruleActor("abc"))).toBe("abc");
    expect(ruleOfActor({ type: "system", id: "routing" })).toBeNull();
    expect(ruleOfActor({ type: "user", id: "rule:abc" })).toBeNull();
  });
});
