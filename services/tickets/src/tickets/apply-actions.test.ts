import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import { applyActions, type ActionContext } from "./apply-actions.ts";
import type { TicketAction } from "./ticket-actions.ts";
import type { Ticket } from "./ticket.ts";

const GAME = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const ALICE = "11111111-1111-4111-8111-111111111111";
const NOW = new Date("2026-03-01T12:00:00.000Z");

const ticket: Ticket = {
  id: "7a7a7a7a-7a7a-4a7a-8a7a-7a7a7a7a7a7a",
  companyId: "cccccccc-cccc-4ccc-8ccc-cccccccccccc",
  runningId: 7,
  gameId: GAME,
  gameEnvironmentId: "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee",
  servicePlayerId: "9b9b9b9b-9b9b-4b9b-8b9b-9b9b9b9b9b9b",
  playerId: "p-1",
  playerName: "Pat",
  email: "pat@example.com",
  status: "new",
  supportSource: "API",
  channels: ["email"],
  language: "de",
  platform: "ios",
  resolutionType: null,
  csatScore: null,
  csatReview: null,
  issueSummary: null,
  issueResolution: null,
  followUpTicketId: null,
  reopenedFromTicketId: null,
  createdAt: new Date("2026-03-01T10:00:00.000Z"),
  lastActivityAt: new Date("2026-03-01T10:00:00.000Z"),
  tags: ["bug"],
  fields: { level: 1 },
  metadata: { platform: "ios", playerTier: 1 },
  assigneeId: null,
  waitingSince: null,
  lastPlayerMessageAt: new Date("2026-03-01T10:00:00.000Z"),
};

const context: ActionContext = {
  now: NOW,
  apiKeyId: "5d5d5d5d-5d5d-4d5d-8d5d-5d5d5d5d5d5d",
  hasAccess: (userId) => userId === ALICE,
  definitions: {
    tags: [{ gameId: null, name: "bug" }, { gameId: GAME, name: "vip" }],
    fields: [{ gameId: null, key: "level", type: "number", options: [] }],
  },
};

function failure(actions: TicketAction[]) {
  try {
    applyActions(ticket, actions, context);
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message, paths: error.details?.issues?.map((i) => i.path) };
    throw error;
  }
  throw new Error("expected a failure");
}

describe("applying actions", () => {
  it("applies them in order and records what each did", () => {
    const plan = applyActions(ticket, [
      { type: "assignTicket", assigneeId: ALICE, userId: ALICE },
      { type: "addTags", tagNames: ["vip", "bug"] },
      { type: "setFields", fields: { level: 2 } },
      { type: "sendMessage", message: "Hallo", attachments: [] },
      { type: "setStatus", status: "waiting" },
      { type: "setPlayerInfo", player: { name: "Sam" } },
      { type: "setPlayerInfo", player: { tier: 3 } },
    ], context);
    expect(plan.ticket).toMatchObject({
      status: "waiting", assigneeId: ALICE, tags: ["bug", "vip"], fields: { level: 2 }, playerName: "Sam",
      metadata: { platform: "ios", playerTier: 3 }, waitingSince: NOW, lastActivityAt: NOW,
    });
    expect(plan.events.map((e) => e.type)).toEqual([
      "STATUS_CHANGED", "ASSIGNEE_CHANGED", "TAGS_CHANGED", "FIELDS_CHANGED", "AGENT_MESSAGE", "STATUS_CHANGED", "PLAYER_INFO_CHANGED", "PLAYER_INFO_CHANGED",
    ]);
    expect(plan.events.find((e) => e.type === "AGENT_MESSAGE")).toMatchObject({ data: { message: "Hallo", language: "de", attachments: [] } });
    expect(plan.events[0]!.actor).toEqual({ type: "user", id: ALICE });
    expect(plan.events[2]!.actor).toEqual({ type: "api_key", id: context.apiKeyId });
    expect(plan.domainEvents.map((e) => e.type)).toEqual([
      "tickets.ticket.status_changed", "tickets.ticket.assigned", "tickets.ticket.tags_changed", "tickets.ticket.fields_changed",
      "tickets.ticket.message_added", "tickets.ticket.status_changed",
    ]);
    expect(plan.playerInfo).toEqual({ name: "Sam", tier: 3 });
  });

  it("records nothing for changes that change nothing", () => {
    const plan = applyActions(ticket, [
      { type: "addTags", tagNames: ["bug"] },
      { type: "removeTags", tagNames: ["vip"] },
      { type: "setFields", fields: { level: 1 } },
      { type: "setOnHold", onHold: false },
    ], context);
    expect(plan.events).toEqual([]);
    expect(plan.domainEvents).toEqual([]);
    expect(plan.ticket.lastActivityAt).toEqual(NOW);
  });

  it("closes with an END event and the closed domain event", () => {
    const plan = applyActions(ticket, [{ type: "rejectTicket" }], context);
    expect(plan.ticket).toMatchObject({ status: "closed", resolutionType: "rejected" });
    expect(plan.events.map((e) => [e.type, e.data])).toEqual([
      ["STATUS_CHANGED", { from: "new", to: "closed" }],
      ["END", { resolutionType: "rejected" }],
    ]);
    expect(plan.domainEvents.map((e) => e.type)).toEqual(["tickets.ticket.status_changed", "tickets.ticket.closed"]);
  });

  it("fails on the first invalid action, naming its index", () => {
    expect(failure([{ type: "addTags", tagNames: ["bug"] }, { type: "addTags", tagNames: ["bug", "nope"] }])).toMatchObject({
      code: "invalid_argument", paths: ["/actions/1/tagNames/1"],
    });
    expect(failure([{ type: "addPrivateNote", message: "x", attachments: [] }, { type: "resolveTicket" }, { type: "sendMessage", message: "late", attachments: [] }])).toMatchObject({
      code: "conflict", message: expect.stringContaining("/actions/2"),
    });
    expect(failure([{ type: "resolveTicket", userId: "22222222-2222-4222-8222-222222222222" }])).toMatchObject({ paths: ["/actions/0/userId"] });
    expect(failure([{ type: "setFields", fields: { "a/b": 1 } }])).toMatchObject({ paths: ["/actions/0/fields/a~1b"] });
  });

  it("attributes every action of a signed-in user's request to that user, player info included", () => {
    const plan = applyActions(ticket, [
      { type: "sendMessage", message: "Hallo", attachments: [] },
      { type: "setPlayerInfo", player: { name: "Sam" } },
      { type: "resolveTicket" },
    ], { ...context, actingUserId: ALICE });
    expect(plan.events.length).toBeGreaterThan(3);
    expect(plan.events.every((event) => event.actor.type === "user" && event.actor.id === ALICE)).toBe(true);
  });

  it("records the attachments of a reply and a note on their events, each once", () => {
    const plan = applyActions(ticket, [
      { type: "sendMessage", message: "See the picture", attachments: ["AAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAA"] },
      { type: "addPrivateNote", message: "Log attached", attachments: ["BBBBBBBBBBBBBBBBBBBBBBBB"] },
    ], context);
    const byType = new Map(plan.events.map((event) => [event.type, event]));
    expect(byType.get("AGENT_MESSAGE")?.data).toMatchObject({ attachments: [{ id: "AAAAAAAAAAAAAAAAAAAAAAAA" }] });
    expect(byType.get("PRIVATE_NOTE")?.data).toMatchObject({ attachments: [{ id: "BBBBBBBBBBBBBBBBBBBBBBBB" }] });
  });

  it("refuses a signed-in user without access to the ticket's game", () => {
    expect(() => applyActions(ticket, [{ type: "addPrivateNote", message: "x", attachments: [] }], { ...context, actingUserId: "22222222-2222-4222-8222-222222222222" }))
      .toThrow(expect.objectContaining({ code: "invalid_argument" }));
  });

  it("leaves the ticket it was given untouched", () => {
    const copy = structuredClone(ticket);
    applyActions(ticket, [{ type: "addTags", tagNames: ["vip"] }, { type: "setFields", fields: { level: 5 } }, { type: "resolveTicket" }], context);
    expect(ticket).toEqual(copy);
  });
});
