// ListTicketEvents, ListTicketBreadcrumbs and AddTicketBreadcrumbs (the player side's upload).
import { randomUUID } from "node:crypto";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket } from "./helpers.ts";

describe("ticket events and breadcrumbs", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  it("lists the six public event types in creation order and nothing internal", async () => {
    const { ticketId } = await createTicket(ctx, tenant, { message: "first", language: "fr" });
    await act(ctx, tenant, ticketId, [
      { action: { case: "assignTicket", value: { assigneeId: tenant.users.alice! } } },
      { action: { case: "sendMessage", value: { message: "reply" } } },
      { action: { case: "addPrivateNote", value: { message: "note" } } },
      { action: { case: "addTags", value: { tagNames: ["bug"] } } },
    ]);
    // CSAT and collector results come from the player side, which writes them like this.
    const collectorId = randomUUID();
    const resultId = randomUUID();
    const running = sql`(select running_id from tickets where id = ${ticketId})`;
    await sql`insert into ticket_events (ticket_id, company_id, ticket_running_id, type, data, actor) values
      (${ticketId}, ${tenant.companyId}, ${running}, 'COLLECTOR_RESULT', ${JSON.stringify({
        collectorId, resultId, title: "Device info",
        fields: [
          { key: "device", label: "Device", type: "TEXT", value: "Pixel" },
          { key: null, label: "Nothing", type: "DATE", value: null },
          { key: "opts", label: "Options", type: "SELECT_GROUP", value: ["a", "b"] },
          { key: "ok", label: "OK", type: "CHECKBOX", value: true },
          { key: "shot", label: "Screenshot", type: "FILE", attachments: [{ id: "att-1" }] },
        ],
      })}::jsonb, '{"type":"player","id":null}'::jsonb),
      (${ticketId}, ${tenant.companyId}, ${running}, 'SOMETHING_INTERNAL', '{}'::jsonb, '{"type":"system","id":"x"}'::jsonb)`.execute(ctx.db);
    await act(ctx, tenant, ticketId, [{ action: { case: "resolveTicket", value: {} } }]);
    await sql`insert into ticket_events (ticket_id, company_id, ticket_running_id, type, data, actor) values
      (${ticketId}, ${tenant.companyId}, ${running}, 'CSAT', '{"score":5,"review":null}'::jsonb, '{"type":"player","id":null}'::jsonb)`.execute(ctx.db);

    const { events } = await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId });
    expect(events.map((e) => e.payload.case)).toEqual(["playerMessage", "agentMessage", "privateNote", "collectorResult", "end", "csat"]);
    const [player, agent, note, collector, end, csat] = events.map((e) => e.payload.value) as Record<string, unknown>[];
    expect(player).toMatchObject({ message: "first", language: "fr", attachments: [] });
    expect(agent).toMatchObject({ message: "reply", language: "fr", attachments: [] });
    expect(note).toMatchObject({ message: "note", attachments: [] });
    expect(end).toMatchObject({ resolutionType: "resolved" });
    expect(csat).toMatchObject({ score: 5 });
    expect(csat!.review).toBeUndefined();
    expect(collector).toMatchObject({ collectorId, resultId, title: "Device info" });
    const fields = (collector as { fields: { key?: string; type: string; value?: { kind: { case: string; value: unknown } }; attachments: { id: string }[] }[] }).fields;
    expect(fields.map((f) => [f.key, f.type, f.value?.kind.case])).toEqual([
      ["device", "TEXT", "stringValue"],
      [undefined, "DATE", "nullValue"],
      ["opts", "SELECT_GROUP", "listValue"],
      ["ok", "CHECKBOX", "boolValue"],
      ["shot", "FILE", undefined],
    ]);
    expect(fields[4]!.attachments).toMatchObject([{ id: "att-1" }]);
    for (const event of events) {
      expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(event.createdAt).toBeDefined();
    }
    const times = events.map((e) => timestampDate(e.createdAt!).getTime());
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  it("answers NOT_FOUND for an unknown ticket and another company's ticket", async () => {
    const { ticketId } = await createTicket(ctx, tenant);
    for (const [companyId, id] of [[other.companyId, ticketId], [tenant.companyId, randomUUID()], [tenant.companyId, "x"]]) {
      expect((await failureOf(ctx.tickets.listTicketEvents({ companyId, ticketId: id }))).code).toBe("not_found");
      expect((await failureOf(ctx.tickets.listTicketBreadcrumbs({ companyId, ticketId: id }))).code).toBe("not_found");
    }
  });

  it("lists no breadcrumbs and a null clock offset for a ticket without any", async () => {
    const { ticketId } = await createTicket(ctx, tenant);
    const response = await ctx.tickets.listTicketBreadcrumbs({ companyId: tenant.companyId, ticketId });
    expect(response.breadcrumbs).toEqual([]);
    expect(response.clientClockOffsetMs).toBeUndefined();
  });

  it("stores uploaded breadcrumbs in order with the client clock offset", async () => {
    const { ticketId } = await createTicket(ctx, tenant);
    const at = (iso: string) => timestampFromDate(new Date(iso));
    await ctx.tickets.addTicketBreadcrumbs({
      companyId: tenant.companyId,
      ticketId,
      breadcrumbs: [
        { message: "opened shop", clientOccurredAt: at("2026-01-01T10:00:00.000Z") },
        { message: "tapped buy", clientOccurredAt: at("2026-01-01T09:59:00.000Z") },
      ],
      clientClockOffsetMs: -1500n,
    });
    await ctx.tickets.addTicketBreadcrumbs({
      companyId: tenant.companyId,
      ticketId,
      breadcrumbs: [{ message: "crash", clientOccurredAt: at("2026-01-01T10:01:00.000Z") }],
    });
    const response = await ctx.tickets.listTicketBreadcrumbs({ companyId: tenant.companyId, ticketId });
    expect(response.breadcrumbs.map((b) => [b.message, timestampDate(b.clientOccurredAt!).toISOString()])).toEqual([
      ["opened shop", "2026-01-01T10:00:00.000Z"],
      ["tapped buy", "2026-01-01T09:59:00.000Z"],
      ["crash", "2026-01-01T10:01:00.000Z"],
    ]);
    expect(response.clientClockOffsetMs).toBe(-1500n);
  });

  it("refuses breadcrumbs without a time, and another company's ticket", async () => {
    const { ticketId } = await createTicket(ctx, tenant);
    const failure = await failureOf(ctx.tickets.addTicketBreadcrumbs({ companyId: tenant.companyId, ticketId, breadcrumbs: [{ message: "x" }] }));
    expect(failure).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/breadcrumbs/0/clientOccurredAt" }] } });
    const foreign = await failureOf(ctx.tickets.addTicketBreadcrumbs({ companyId: other.companyId, ticketId, breadcrumbs: [] }));
    expect(foreign.code).toBe("not_found");
  });
});
