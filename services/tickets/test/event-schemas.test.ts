// The domain events actually published match the event contract (libs/events): every event of
// a realistic run (creation, every action, auto-close, a player's collector answer and CSAT, a
// player's erasure, a merge, an SLA warning and breach) is checked against its type's definition, exactly as a producer must write it.
import { EVENT_DEFINITIONS, publishedEventProblems, type EnvelopeLike } from "@support/events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICKET_EVENT_TYPES } from "../src/tickets/domain-events.ts";
import { eventually, startTickets, tenantFile, type TicketsTestContext } from "./context.ts";
import { act, createTicket } from "./helpers.ts";

describe("published events against the event contract", () => {
  let ctx: TicketsTestContext;

  beforeAll(async () => {
    ctx = await startTickets();
    const tenant = await ctx.applyTenant(tenantFile({ autoCloseWaitingAfterHours: 1 }));
    const alice = tenant.users.alice!;
    const { ticketId } = await createTicket(ctx, tenant, { tags: ["bug"], fields: { level: 2 }, platform: "web" });
    await act(ctx, tenant, ticketId, [
      { action: { case: "assignTicket", value: { assigneeId: alice, userId: alice } } },
      { action: { case: "addTags", value: { tagNames: ["vip"] } } },
      { action: { case: "removeTags", value: { tagNames: ["bug"] } } },
      { action: { case: "setFields", value: { fields: { level: 3, ship: ["fighter"] } } } },
      { action: { case: "sendMessage", value: { message: "hello" } } },
      { action: { case: "addPrivateNote", value: { message: "note" } } },
      { action: { case: "unassignTicket", value: {} } },
      { action: { case: "setStatus", value: { status: "waiting" } } },
    ]);
    await ctx.server.autoClose.runOnce(new Date(Date.now() + 2 * 3_600_000));
    // The player side: a collector answer on a waiting ticket, then a CSAT once resolved.
    const rated = await createTicket(ctx, tenant);
    const { ticket: ratedTicket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId: rated.ticketId });
    const owner = { companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, playerId: ratedTicket!.playerId! };
    await act(ctx, tenant, rated.ticketId, [{ action: { case: "setStatus", value: { status: "waiting" } } }]);
    await ctx.playerSide.addCollectorResult({
      owner,
      ticketId: rated.ticketId,
      collectorId: "5b0c7a3e-1d2f-4e5a-9b8c-7d6e5f4a3b2c",
      title: "Your device",
      fields: [
        { key: "model", label: "Model", type: "TEXT", value: { kind: { case: "stringValue", value: "Pixel" } } },
        { label: "Platforms", type: "DROPDOWN", value: { kind: { case: "listValue", value: { values: [{ kind: { case: "stringValue", value: "android" } }] } } } },
        { key: "agree", label: "Agree", type: "CHECKBOX", value: { kind: { case: "boolValue", value: true } } },
        { key: "shot", label: "Screenshot", type: "FILE" },
      ],
    });
    await act(ctx, tenant, rated.ticketId, [{ action: { case: "resolveTicket", value: {} } }]);
    await ctx.playerSide.submitCsat({ owner, ticketId: rated.ticketId, score: 4, review: "Quick, thanks" });
    const second = await createTicket(ctx, tenant, { player: { email: "anonymous@example.com" } });
    await act(ctx, tenant, second.ticketId, [{ action: { case: "rejectTicket", value: {} } }]);
    const { ticket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId: second.ticketId });
    await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId: ticket!.servicePlayerId! });
    // A merge of two tickets of one player (the source gets a tag the target lacks).
    const player = { id: "merging-player", email: "merging@example.com" };
    const target = await createTicket(ctx, tenant, { player, message: "first of two" });
    const source = await createTicket(ctx, tenant, { player, message: "second of two", tags: ["crash"], skipDuplicateCheck: true });
    await ctx.tickets.mergeTickets({ companyId: tenant.companyId, sourceTicketId: source.ticketId, targetTicketId: target.ticketId, actingUserId: alice });
    // An SLA policy: 2 minutes to the first answer, a warning 1 minute before; the sweep's clock moves on.
    await ctx.tickets.setSlaSettings({ companyId: tenant.companyId, settings: { calendar: null, policies: [{ id: "fast", name: "Fast", targets: { firstResponseMinutes: 2 }, warnBeforeMinutes: 1 }] } });
    const timed = await createTicket(ctx, tenant, { player: { id: "timed-player", email: "timed@example.com" } });
    await ctx.tickets.performTicketActions({ companyId: tenant.companyId, ticketId: timed.ticketId, actions: [{ action: { case: "assignTicket", value: { assigneeId: alice } } }] });
    await ctx.server.sla.runOnce(new Date(Date.now() + 90_000));
    await ctx.server.sla.runOnce(new Date(Date.now() + 180_000));
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.sla_breached"));
    await eventually(() => ctx.published.filter((e) => e.type === "tickets.ticket.closed").length === 4);
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.merged"));
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.deleted"));
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.rated"));
  });
  afterAll(() => ctx?.stop());

  it("has every event type in the contract", () => {
    // The incidents of outbreak detection are published and checked in outbreaks.test.ts.
    const defined = EVENT_DEFINITIONS.map((definition) => definition.type).filter((type) => type.startsWith("tickets.ticket."));
    expect(defined.sort()).toEqual(Object.values(TICKET_EVENT_TYPES).sort());
  });

  it("publishes every event type, each matching its schema", () => {
    expect(new Set(ctx.published.map((e) => e.type))).toEqual(new Set(Object.values(TICKET_EVENT_TYPES)));
    const rated = ctx.published.find((e) => e.type === "tickets.ticket.rated")!;
    expect(rated.data).toMatchObject({ score: 4, review: "Quick, thanks", actor: { type: "player" } });
    const answered = ctx.published.find((e) => e.type === "tickets.ticket.collector_result_added")!;
    expect(answered.data).toMatchObject({ title: "Your device", fields: [{ key: "model", value: "Pixel" }, { key: null, value: ["android"] }, { value: true }, { type: "FILE", attachments: [] }] });
    const order = ctx.published.filter((e) => (e.data as { ticketId?: string }).ticketId === (answered.data as { ticketId: string }).ticketId).map((e) => e.type);
    expect(order.slice(order.indexOf("tickets.ticket.collector_result_added") - 1)).toEqual([
      "tickets.ticket.status_changed", "tickets.ticket.collector_result_added", "tickets.ticket.status_changed", "tickets.ticket.closed", "tickets.ticket.rated",
    ]);
    for (const event of ctx.published) expect(publishedEventProblems(event), `${event.type} ${JSON.stringify(event.data)}`).toEqual([]);
  });

  it("has a contract that refuses what the events must not carry", () => {
    const changed = (type: string, data: (data: Record<string, unknown>) => Record<string, unknown>) => {
      const event = ctx.published.find((e) => e.type === type)! as EnvelopeLike & { data: Record<string, unknown> };
      return publishedEventProblems({ ...event, data: data(event.data) });
    };
    expect(changed("tickets.ticket.status_changed", (data) => ({ ...data, to: "open" }))).not.toEqual([]);
    expect(changed("tickets.ticket.status_changed", (data) => ({ ...data, ticketId: "nope" }))).not.toEqual([]);
    expect(changed("tickets.ticket.status_changed", (data) => ({ ...data, actor: { type: "robot", id: null } }))).not.toEqual([]);
    expect(changed("tickets.ticket.status_changed", ({ runningId: _omitted, ...data }) => data)).not.toEqual([]);
    expect(changed("tickets.ticket.rated", (data) => ({ ...data, score: 6 }))).not.toEqual([]);
    const fields = (data: Record<string, unknown>) => data.fields as Record<string, unknown>[];
    expect(changed("tickets.ticket.collector_result_added", (data) => ({ ...data, fields: [{ ...fields(data)[3], value: "x" }] }))).not.toEqual([]);
    expect(changed("tickets.ticket.collector_result_added", (data) => ({ ...data, fields: [{ key: null, label: "L", type: "TEXT" }] }))).not.toEqual([]);
    expect(changed("tickets.ticket.created", (data) => ({ ...data, secret: "x" }))).toEqual(["tickets.ticket.created: data must NOT have additional properties"]);
  });
});
