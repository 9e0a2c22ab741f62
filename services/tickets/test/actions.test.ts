// PerformTicketActions (the ticket actions and the state machine) against the real content and
// players services.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket, getTicket, type ActionInit } from "./helpers.ts";

const API_KEY = "0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f";

describe("PerformTicketActions", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;
  let alice: string;
  let bob: string;

  const newTicket = async (overrides = {}) => (await createTicket(ctx, tenant, overrides)).ticketId;
  const events = async (ticketId: string) => (await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId })).events;
  const rowOf = async (ticketId: string) => (await sql`select * from tickets where id = ${ticketId}`.execute(ctx.db)).rows[0];
  const auditOf = async (ticketId: string) =>
    (await sql<{ type: string; data: unknown; actor: unknown }>`select type, data, actor from ticket_events where ticket_id = ${ticketId} order by seq`.execute(ctx.db)).rows;

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
    alice = tenant.users.alice!; // galaxy only
    bob = tenant.users.bob!; // farm only
  });
  afterAll(() => ctx?.stop());

  describe("each action", () => {
    it("addTags and removeTags change the tags; an existing tag or a missing one is fine", async () => {
      const ticketId = await newTicket({ tags: ["bug"] });
      await act(ctx, tenant, ticketId, [
        { action: { case: "addTags", value: { tagNames: ["bug", "crash", "vip"] } } },
        { action: { case: "removeTags", value: { tagNames: ["vip", "bug"] } } },
        { action: { case: "removeTags", value: { tagNames: ["vip"] } } },
      ]);
      expect((await getTicket(ctx, tenant, ticketId)).tags).toEqual(["crash"]);
    });

    it("setFields sets values of the field's type and keeps the others", async () => {
      const ticketId = await newTicket({ fields: { note: "kept" } });
      await act(ctx, tenant, ticketId, [{ action: { case: "setFields", value: { fields: { level: 7, ship: ["fighter"], spender: false, bought: "2026-05-01" } } } }]);
      expect((await getTicket(ctx, tenant, ticketId)).fields).toEqual({ note: "kept", level: 7, ship: ["fighter"], spender: false, bought: "2026-05-01" });
    });

    it("sendMessage records an AGENT_MESSAGE in the ticket's language and moves a new ticket on", async () => {
      const ticketId = await newTicket({ language: "fr" });
      await act(ctx, tenant, ticketId, [{ action: { case: "sendMessage", value: { message: "Bonjour", userId: alice } } }]);
      expect((await getTicket(ctx, tenant, ticketId)).status).toBe("unassigned");
      const list = await events(ticketId);
      expect(list.map((e) => e.payload.case)).toEqual(["playerMessage", "agentMessage"]);
      expect(list[1]!.payload.value).toMatchObject({ message: "Bonjour", language: "fr", attachments: [] });
    });

    it("addPrivateNote records a PRIVATE_NOTE and changes no status", async () => {
      const ticketId = await newTicket();
      await act(ctx, tenant, ticketId, [{ action: { case: "addPrivateNote", value: { message: "internal" } } }]);
      expect((await getTicket(ctx, tenant, ticketId)).status).toBe("new");
      expect((await events(ticketId))[1]!.payload).toEqual({ case: "privateNote", value: expect.objectContaining({ message: "internal", attachments: [] }) });
    });

    it("assignTicket, setStatus, setOnHold and unassignTicket move the status by whether the ticket has an assignee", async () => {
      const ticketId = await newTicket();
      const statusAfter = async (action: ActionInit) => {
        await act(ctx, tenant, ticketId, [action]);
        const ticket = await getTicket(ctx, tenant, ticketId);
        return [ticket.status, ticket.assigneeId ?? null];
      };
      expect(await statusAfter({ action: { case: "assignTicket", value: { assigneeId: alice } } })).toEqual(["assigned", alice]);
      expect(await statusAfter({ action: { case: "setStatus", value: { status: "waiting" } } })).toEqual(["waiting", alice]);
      expect(await statusAfter({ action: { case: "unassignTicket", value: {} } })).toEqual(["waiting", null]);
      expect(await statusAfter({ action: { case: "setStatus", value: { status: "assigned" } } })).toEqual(["unassigned", null]);
      expect(await statusAfter({ action: { case: "setOnHold", value: { onHold: true } } })).toEqual(["on_hold", null]);
      expect(await statusAfter({ action: { case: "assignTicket", value: { assigneeId: alice } } })).toEqual(["on_hold", alice]);
      expect(await statusAfter({ action: { case: "setOnHold", value: { onHold: false } } })).toEqual(["assigned", alice]);
      expect(await statusAfter({ action: { case: "unassignTicket", value: {} } })).toEqual(["unassigned", null]);
    });

    it("resolveTicket and rejectTicket close with their resolution and an END event", async () => {
      for (const [action, resolution] of [["resolveTicket", "resolved"], ["rejectTicket", "rejected"]] as const) {
        const ticketId = await newTicket();
        await act(ctx, tenant, ticketId, [{ action: { case: action, value: {} } }]);
        const ticket = await getTicket(ctx, tenant, ticketId);
        expect([ticket.status, ticket.resolutionType]).toEqual(["closed", resolution]);
        expect((await events(ticketId)).at(-1)!.payload).toEqual({ case: "end", value: expect.objectContaining({ resolutionType: resolution }) });
      }
    });

    it("setPlayerInfo updates the player in the players service and the ticket", async () => {
      const ticketId = await newTicket({ player: { id: "p-info", name: "Old", email: "info@example.com" } });
      await act(ctx, tenant, ticketId, [{ action: { case: "setPlayerInfo", value: { name: "New Name", tier: 3 } } }]);
      const ticket = await getTicket(ctx, tenant, ticketId);
      expect(ticket.playerName).toBe("New Name");
      expect(ticket.metadata).toMatchObject({ playerTier: 3 });
      const { player } = await ctx.players.getPlayer({ companyId: tenant.companyId, playerId: ticket.servicePlayerId! });
      expect(player).toMatchObject({ name: "New Name", tier: 3 });
    });

    it("updates lastActivityAt on every action", async () => {
      const ticketId = await newTicket();
      const before = (await getTicket(ctx, tenant, ticketId)).lastActivityAt!;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await act(ctx, tenant, ticketId, [{ action: { case: "addTags", value: { tagNames: ["bug"] } } }]);
      const after = (await getTicket(ctx, tenant, ticketId)).lastActivityAt!;
      expect(after.seconds * 1000n + BigInt(Math.floor(after.nanos / 1e6))).toBeGreaterThan(before.seconds * 1000n + BigInt(Math.floor(before.nanos / 1e6)));
    });

    it("attributes actions to the user, else to the API key, in the audit trail only", async () => {
      const ticketId = await newTicket();
      await act(ctx, tenant, ticketId, [
        { action: { case: "assignTicket", value: { assigneeId: alice, userId: alice } } },
        { action: { case: "addTags", value: { tagNames: ["vip"] } } },
      ], API_KEY);
      const audit = await auditOf(ticketId);
      expect(audit.map((e) => [e.type, e.actor])).toEqual([
        ["PLAYER_MESSAGE", { type: "player", id: expect.any(String) }],
        ["STATUS_CHANGED", { type: "user", id: alice }],
        ["ASSIGNEE_CHANGED", { type: "user", id: alice }],
        ["TAGS_CHANGED", { type: "api_key", id: API_KEY }],
      ]);
      // Internal types are never returned.
      expect((await events(ticketId)).map((e) => e.payload.case)).toEqual(["playerMessage"]);
    });

    it("attributes every action of a signed-in user's request to that user, and names the author of each public event", async () => {
      const ticketId = await newTicket();
      await ctx.tickets.performTicketActions({
        companyId: tenant.companyId,
        ticketId,
        actingUserId: alice,
        actions: [{ action: { case: "sendMessage", value: { message: "Hello" } } }, { action: { case: "setPlayerInfo", value: { name: "Sam" } } }],
      });
      const audit = await auditOf(ticketId);
      expect(audit.length).toBeGreaterThan(2);
      for (const entry of audit.slice(1)) expect(entry.actor, entry.type).toEqual({ type: "user", id: alice });
      expect((await events(ticketId)).map((e) => [e.payload.case, e.actor?.type, e.actor?.id])).toEqual([
        ["playerMessage", "player", expect.any(String)],
        ["agentMessage", "user", alice],
      ]);
    });

    it("refuses a signed-in user's request naming a userId, or from a user without access to the game", async () => {
      const ticketId = await newTicket();
      const named = await failureOf(ctx.tickets.performTicketActions({
        companyId: tenant.companyId, ticketId, actingUserId: alice, actions: [{ action: { case: "resolveTicket", value: { userId: alice } } }],
      }));
      expect(named.details?.issues?.map((issue) => issue.path)).toEqual(["/actions/0/userId"]);
      const noAccess = await failureOf(ctx.tickets.performTicketActions({
        companyId: tenant.companyId, ticketId, actingUserId: bob, actions: [{ action: { case: "addPrivateNote", value: { message: "x" } } }],
      }));
      expect(noAccess.code).toBe("invalid_argument");
      expect((await events(ticketId)).map((e) => e.payload.case)).toEqual(["playerMessage"]);
    });
  });

  describe("rules", () => {
    it("applies nothing when the third action is invalid", async () => {
      const ticketId = await newTicket({ tags: ["bug"], fields: { level: 1 } });
      const before = await rowOf(ticketId);
      const auditBefore = await auditOf(ticketId);
      const failure = await failureOf(
        act(ctx, tenant, ticketId, [
          { action: { case: "addTags", value: { tagNames: ["vip"] } } },
          { action: { case: "sendMessage", value: { message: "hi" } } },
          { action: { case: "setFields", value: { fields: { level: "high" } } } },
        ]),
      );
      expect(failure).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/actions/2/fields/level" }] } });
      expect(await rowOf(ticketId)).toEqual(before);
      expect(await auditOf(ticketId)).toEqual(auditBefore);
    });

    it("answers NOT_FOUND for an unknown ticket and another company's ticket", async () => {
      const ticketId = await newTicket();
      for (const [companyId, id] of [[tenant.companyId, "1d2d3d4d-0000-4000-8000-000000000000"], [other.companyId, ticketId], [tenant.companyId, "nope"]]) {
        const failure = await failureOf(ctx.tickets.performTicketActions({ companyId, ticketId: id, actions: [{ action: { case: "resolveTicket", value: {} } }] }));
        expect(failure.code).toBe("not_found");
      }
      expect((await getTicket(ctx, tenant, ticketId)).status).toBe("new");
    });

    it("refuses a second status action in one request", async () => {
      const ticketId = await newTicket();
      const failure = await failureOf(
        act(ctx, tenant, ticketId, [
          { action: { case: "setOnHold", value: { onHold: true } } },
          { action: { case: "addTags", value: { tagNames: ["bug"] } } },
          { action: { case: "setStatus", value: { status: "waiting" } } },
        ]),
      );
      expect(failure.details?.issues).toEqual([{ path: "/actions/2/type", message: expect.stringContaining("only one status action") }]);
    });

    it("refuses setStatus, setOnHold, sendMessage, resolveTicket and rejectTicket on a closed ticket with 409", async () => {
      const ticketId = await newTicket();
      await act(ctx, tenant, ticketId, [{ action: { case: "resolveTicket", value: {} } }]);
      const refused: ActionInit[] = [
        { action: { case: "setStatus", value: { status: "waiting" } } },
        { action: { case: "setOnHold", value: { onHold: false } } },
        { action: { case: "sendMessage", value: { message: "late" } } },
        { action: { case: "resolveTicket", value: {} } },
        { action: { case: "rejectTicket", value: {} } },
      ];
      for (const action of refused) {
        const failure = await failureOf(act(ctx, tenant, ticketId, [{ action: { case: "addPrivateNote", value: { message: "n" } } }, action]));
        expect(failure.code, action.action!.case).toBe("conflict");
        expect(failure.message).toContain("/actions/1");
      }
      // Assignment, tags, fields and notes still work on a closed ticket.
      await act(ctx, tenant, ticketId, [
        { action: { case: "assignTicket", value: { assigneeId: alice } } },
        { action: { case: "addTags", value: { tagNames: ["vip"] } } },
        { action: { case: "addPrivateNote", value: { message: "after close" } } },
        { action: { case: "unassignTicket", value: {} } },
      ]);
      const ticket = await getTicket(ctx, tenant, ticketId);
      expect([ticket.status, ticket.resolutionType, ticket.assigneeId, ticket.tags]).toEqual(["closed", "resolved", undefined, ["vip"]]);
    });

    it("refuses a closed ticket's second close within the same request", async () => {
      const ticketId = await newTicket();
      const failure = await failureOf(act(ctx, tenant, ticketId, [{ action: { case: "resolveTicket", value: {} } }, { action: { case: "rejectTicket", value: {} } }]));
      expect(failure.code).toBe("conflict");
      expect((await getTicket(ctx, tenant, ticketId)).status).toBe("new");
    });

    it("requires userId and assigneeId to be users with access to the ticket's game", async () => {
      const ticketId = await newTicket();
      const cases: [ActionInit, string][] = [
        [{ action: { case: "addTags", value: { tagNames: ["bug"], userId: bob } } }, "/actions/0/userId"],
        [{ action: { case: "assignTicket", value: { assigneeId: bob } } }, "/actions/0/assigneeId"],
        [{ action: { case: "assignTicket", value: { assigneeId: other.users.alice! } } }, "/actions/0/assigneeId"],
        [{ action: { case: "resolveTicket", value: { userId: "5e5e5e5e-0000-4000-8000-000000000000" } } }, "/actions/0/userId"],
        [{ action: { case: "resolveTicket", value: { userId: "not-a-uuid" } } }, "/actions/0/userId"],
      ];
      for (const [action, path] of cases) {
        const failure = await failureOf(act(ctx, tenant, ticketId, [action]));
        expect(failure, path).toMatchObject({ code: "invalid_argument", details: { issues: [{ path }] } });
      }
      // bob may act on the farm game.
      const farmTicket = await newTicket({ gameId: tenant.games.farm!.id });
      await act(ctx, tenant, farmTicket, [{ action: { case: "assignTicket", value: { assigneeId: bob, userId: bob } } }]);
      expect((await getTicket(ctx, tenant, farmTicket)).assigneeId).toBe(bob);
    });

    it("is strict about tags and fields: undefined ones and wrong types are a 400", async () => {
      const ticketId = await newTicket();
      const cases: [ActionInit, string][] = [
        [{ action: { case: "addTags", value: { tagNames: ["bug", "harvest"] } } }, "/actions/0/tagNames/1"],
        [{ action: { case: "removeTags", value: { tagNames: ["nope"] } } }, "/actions/0/tagNames/0"],
        [{ action: { case: "setFields", value: { fields: { crop: "corn" } } } }, "/actions/0/fields/crop"],
        [{ action: { case: "setFields", value: { fields: { ship: "tank" } } } }, "/actions/0/fields/ship"],
        [{ action: { case: "setFields", value: { fields: { level: true } } } }, "/actions/0/fields/level"],
        [{ action: { case: "setFields", value: { fields: { level: { deep: 1 } } } } }, "/actions/0/fields/level"],
        [{ action: { case: "addTags", value: { tagNames: [] } } }, "/actions/0/tagNames"],
        [{ action: { case: "setStatus", value: { status: "closed" } } }, "/actions/0/status"],
        [{ action: { case: "sendMessage", value: { message: "" } } }, "/actions/0/message"],
        [{ action: { case: "setPlayerInfo", value: { tier: 4 } } }, "/actions/0/player/tier"],
        [{ action: { case: undefined } }, "/actions/0/type"],
      ];
      for (const [action, path] of cases) {
        const failure = await failureOf(act(ctx, tenant, ticketId, [action]));
        expect(failure, path).toMatchObject({ code: "invalid_argument", details: { issues: [{ path }] } });
      }
      expect((await failureOf(act(ctx, tenant, ticketId, []))).details?.issues).toEqual([{ path: "/actions", message: "must have at least 1 item" }]);
    });

    it("accepts a tag defined after the ticket was created (no stale cache)", async () => {
      const ticketId = await newTicket();
      await act(ctx, tenant, ticketId, [{ action: { case: "addTags", value: { tagNames: ["bug"] } } }]);
      // A tag that content learns of only now; the definitions cached above do not have it.
      await sql`insert into content.tags (company_id, game_id, name) values (${tenant.companyId}, null, 'late-tag')`.execute(ctx.db);
      await act(ctx, tenant, ticketId, [{ action: { case: "addTags", value: { tagNames: ["late-tag"] } } }]);
      expect((await getTicket(ctx, tenant, ticketId)).tags).toEqual(["bug", "late-tag"]);
    });

    it("serialises concurrent requests on one ticket without losing changes", async () => {
      const ticketId = await newTicket();
      await Promise.all([
        ...["bug", "vip", "crash"].map((tag) => act(ctx, tenant, ticketId, [{ action: { case: "addTags", value: { tagNames: [tag] } } }])),
        ...Array.from({ length: 10 }, (_, i) => act(ctx, tenant, ticketId, [{ action: { case: "addPrivateNote", value: { message: `note ${i}` } } }])),
      ]);
      expect((await getTicket(ctx, tenant, ticketId)).tags.sort()).toEqual(["bug", "crash", "vip"]);
      expect((await events(ticketId)).filter((e) => e.payload.case === "privateNote")).toHaveLength(10);
    });
  });

  it("publishes status_changed, assigned, message_added, closed, tags_changed and fields_changed", async () => {
    const ticketId = await newTicket();
    await act(ctx, tenant, ticketId, [
      { action: { case: "assignTicket", value: { assigneeId: alice } } },
      { action: { case: "addTags", value: { tagNames: ["vip"] } } },
      { action: { case: "setFields", value: { fields: { level: 9 } } } },
      { action: { case: "sendMessage", value: { message: "We are on it" } } },
      { action: { case: "addPrivateNote", value: { message: "note" } } },
      { action: { case: "resolveTicket", value: { userId: alice } } },
    ], API_KEY);
    type Data = { ticketId?: string; type?: string; actor?: unknown };
    const mine = () =>
      ctx.published.filter((e) => (e.data as Data).ticketId === ticketId && (e.data as Data).type !== "PLAYER_MESSAGE");
    await eventually(() => mine().length >= 8);
    expect(mine().map((e) => e.type)).toEqual([
      "tickets.ticket.status_changed",
      "tickets.ticket.assigned",
      "tickets.ticket.tags_changed",
      "tickets.ticket.fields_changed",
      "tickets.ticket.message_added",
      "tickets.ticket.message_added",
      "tickets.ticket.status_changed",
      "tickets.ticket.closed",
    ]);
    const [assignedStatus, assigned, tags, fields, message, note, closedStatus, closed] = mine();
    expect(assignedStatus!.data).toMatchObject({ from: "new", to: "assigned", actor: { type: "api_key", id: API_KEY } });
    expect(assigned!.data).toMatchObject({ assigneeId: alice, previousAssigneeId: null });
    expect(tags!.data).toMatchObject({ added: ["vip"], removed: [], tags: ["vip"] });
    expect(fields!.data).toMatchObject({ changed: { level: 9 }, fields: { level: 9 } });
    expect(message!.data).toMatchObject({ type: "AGENT_MESSAGE", message: "We are on it", language: "en" });
    expect(note!.data).toMatchObject({ type: "PRIVATE_NOTE", message: "note", language: null });
    expect(closedStatus!.data).toMatchObject({ from: "assigned", to: "closed", resolutionType: "resolved", actor: { type: "user", id: alice } });
    expect(closed!.data).toMatchObject({ resolutionType: "resolved", runningId: expect.any(Number) });
    for (const event of mine()) expect(event.companyId).toBe(tenant.companyId);
  });
});
