import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import type { Ticket } from "../tickets/ticket.ts";
import { checkRule, conditionsMatch, ruleActor, ruleOfActor, runActions, runMomentId, triggerMatches, triggersOf, type RuleInput } from "./rule.ts";

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

describe("a rule's own actions", () => {
  const CANNED = "7c1e2d3f-0000-4000-8000-0000000000dd";

  it("takes sendCannedResponse and callWebhook beside ticket actions, and names bad ones by the rule's indexes", () => {
    const rule = checkRule({ ...base, actions: [{ type: "sendCannedResponse", cannedResponseId: CANNED.toUpperCase() }, { type: "addTags", tagNames: ["vip"] }, { type: "callWebhook", url: " https://hooks.example/x " }] });
    expect(rule.actions).toEqual([{ type: "sendCannedResponse", cannedResponseId: CANNED }, { type: "addTags", tagNames: ["vip"] }, { type: "callWebhook", url: "https://hooks.example/x" }]);
    expect(issuesOf({ ...base, actions: [{ type: "sendCannedResponse", cannedResponseId: "nope" }, { type: "callWebhook" }, { type: "callWebhook", url: "https://x", secret: "s" }] })).toEqual([
      "/actions/0/cannedResponseId", "/actions/1/url", "/actions/2/secret",
    ]);
    // checkActions' own paths are the rule's, whatever comes before.
    expect(issuesOf({ ...base, actions: [{ type: "callWebhook", url: "https://x" }, { type: "setStatus", status: "closed" }] })).toEqual(["/actions/1/status"]);
  });

  it("runs a canned reply in its place, collects the URLs, and fails when a response is gone or the actions clash", () => {
    const reply = [{ type: "sendMessage", message: "Hallo" }, { type: "addTags", tagNames: ["answered"] }, { type: "setStatus", status: "waiting" }];
    const actions = checkRule({ ...base, actions: [{ type: "callWebhook", url: "https://a" }, { type: "sendCannedResponse", cannedResponseId: CANNED }, { type: "addPrivateNote", message: "n" }] }).actions;
    expect(runActions(actions, new Map([[CANNED, reply]]))).toEqual({
      actions: [{ type: "sendMessage", message: "Hallo", attachments: [] }, { type: "addTags", tagNames: ["answered"] }, { type: "setStatus", status: "waiting" }, { type: "addPrivateNote", message: "n", attachments: [] }],
      webhookUrls: ["https://a"],
    });
    expect(() => runActions(actions, new Map([[CANNED, undefined]]))).toThrow(`canned response ${CANNED} of /actions/1 is not found: deleted, or not for this ticket's game`);
    const onHold = checkRule({ ...base, actions: [{ type: "setOnHold", onHold: true }, { type: "sendCannedResponse", cannedResponseId: CANNED }] }).actions;
    expect(() => runActions(onHold, new Map([[CANNED, reply]]))).toThrow(/the actions do not go together on this ticket: only one status action/);
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
    expect(triggersOf({ ...envelope, type: "tickets.ticket.status_changed", data: { ...ref, from: "new", to: "waiting", actor } } as never)).toEqual([
      expect.objectContaining({ trigger: "status_changed", status: "waiting", ticketId: ref.ticketId, eventId: "e1" }),
    ]);
    expect(triggersOf({ ...envelope, type: "tickets.ticket.message_added", data: { ...ref, eventId: "m", type: "AGENT_MESSAGE", message: "x", language: "en", attachments: [], actor } } as never)).toEqual([]);
    expect(triggersOf({ ...envelope, type: "tickets.ticket.message_added", data: { ...ref, eventId: "m", type: "PLAYER_MESSAGE", message: "x", language: "en", attachments: [], actor } } as never)).toEqual([
      expect.objectContaining({ trigger: "player_message", message: "x", messageEventId: "m" }),
    ]);
    expect(triggersOf({ ...envelope, type: "tickets.ticket.tags_changed", data: { ...ref, added: [], removed: [], tags: [], actor } } as never)).toEqual([]);
  });

  it("reads an incident's opening as one outbreak moment per ticket, each with an id of its own, and a join as one", () => {
    const incidentId = "7c1e2d3f-0000-4000-8000-0000000000dd";
    const ticketIds = ["7c1e2d3f-0000-4000-8000-000000000101", "7c1e2d3f-0000-4000-8000-000000000102", "7c1e2d3f-0000-4000-8000-000000000103"];
    const opened = { ...envelope, type: "tickets.incident.opened", data: { incidentId, gameId: GAME, title: "t", openedAt: envelope.occurredAt, ticketIds } } as never;
    const moments = triggersOf(opened);
    expect(moments.map((moment) => [moment.trigger, moment.ticketId, moment.incidentId, moment.actor])).toEqual(ticketIds.map((id) => ["outbreak", id, incidentId, { type: "system", id: "outbreaks" }]));
    // Per ticket, the same on every delivery, and never another event's or ticket's.
    expect(moments.map((moment) => moment.eventId)).toEqual(ticketIds.map((id) => runMomentId("e1", id)));
    expect(new Set(moments.map((moment) => moment.eventId)).size).toBe(3);
    expect(triggersOf(opened).map((moment) => moment.eventId)).toEqual(moments.map((moment) => moment.eventId));
    expect(triggersOf({ ...(opened as object), id: "e2" } as never)[0]!.eventId).not.toBe(moments[0]!.eventId);
    expect(moments[0]!.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);

    const joined = { ...envelope, type: "tickets.incident.ticket_joined", data: { incidentId, gameId: GAME, ticketId: ticketIds[0], similarity: 0.8, joinedAt: envelope.occurredAt } } as never;
    expect(triggersOf(joined)).toEqual([expect.objectContaining({ trigger: "outbreak", ticketId: ticketIds[0], incidentId, eventId: "e1" })]);
    expect(triggerMatches({ type: "outbreak" }, triggersOf(joined)[0]!)).toBe(true);
    expect(triggerMatches({ type: "ticket_created" }, triggersOf(joined)[0]!)).toBe(false);
  });

  it("accepts the outbreak trigger without options, and refuses any", () => {
    expect(checkRule({ ...base, trigger: { type: "outbreak" } }).trigger).toEqual({ type: "outbreak" });
    expect(issuesOf({ ...base, trigger: { type: "outbreak", incidentId: "x" } })).toEqual(["/trigger/incidentId"]);
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
