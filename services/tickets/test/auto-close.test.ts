// Auto-close of waiting tickets without a player message: due after the company's autoCloseWaitingAfterHours,
// closed once with an END event, also with several replicas sweeping at the same time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { eventually, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket, getTicket } from "./helpers.ts";

const HOUR = 3_600_000;

describe("auto-close", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let patient: TenantResult;

  const waitingTicket = async (t: TenantResult) => {
    const { ticketId } = await createTicket(ctx, t);
    await act(ctx, t, ticketId, [{ action: { case: "setStatus", value: { status: "waiting" } } }]);
    return ticketId;
  };
  const endEvents = async (t: TenantResult, ticketId: string) =>
    (await ctx.tickets.listTicketEvents({ companyId: t.companyId, ticketId })).events.filter((e) => e.payload.case === "end");

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile({ autoCloseWaitingAfterHours: 2 }));
    patient = await ctx.applyTenant(tenantFile({ autoCloseWaitingAfterHours: 48 }));
  });
  afterAll(() => ctx?.stop());

  it("closes waiting tickets after the company's hours as auto_closed with an END event", async () => {
    const waiting = await waitingTicket(tenant);
    const open = (await createTicket(ctx, tenant)).ticketId;
    const otherCompany = await waitingTicket(patient);

    expect(await ctx.server.autoClose.runOnce(new Date(Date.now() + 2 * HOUR - 60_000))).toBe(0);
    expect((await getTicket(ctx, tenant, waiting)).status).toBe("waiting");

    const closed = await ctx.server.autoClose.runOnce(new Date(Date.now() + 2 * HOUR + 60_000));
    expect(closed).toBeGreaterThanOrEqual(1);
    const ticket = await getTicket(ctx, tenant, waiting);
    expect([ticket.status, ticket.resolutionType]).toEqual(["closed", "auto_closed"]);
    expect((await endEvents(tenant, waiting)).map((e) => e.payload.value)).toEqual([expect.objectContaining({ resolutionType: "auto_closed" })]);
    expect((await getTicket(ctx, tenant, open)).status).toBe("new");
    // Another company waits 48 hours.
    expect((await getTicket(ctx, patient, otherCompany)).status).toBe("waiting");
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.closed" && (e.data as { ticketId: string }).ticketId === waiting));
    const event = ctx.published.find((e) => e.type === "tickets.ticket.closed" && (e.data as { ticketId: string }).ticketId === waiting)!;
    expect(event.data).toMatchObject({ resolutionType: "auto_closed", actor: { type: "system", id: "auto-close" } });
  });

  it("counts from the last player message", async () => {
    const ticketId = await waitingTicket(tenant);
    // A player message arrived an hour after the ticket entered waiting.
    await sql`update tickets set last_player_message_at = waiting_since + interval '1 hour' where id = ${ticketId}`.execute(ctx.db);
    await ctx.server.autoClose.runOnce(new Date(Date.now() + 2 * HOUR + 60_000));
    expect((await getTicket(ctx, tenant, ticketId)).status).toBe("waiting");
    await ctx.server.autoClose.runOnce(new Date(Date.now() + 3 * HOUR + 60_000));
    expect((await getTicket(ctx, tenant, ticketId)).status).toBe("closed");
  });

  it("restarts the clock when a ticket leaves and re-enters waiting", async () => {
    const ticketId = await waitingTicket(tenant);
    await sql`update tickets set waiting_since = waiting_since - interval '10 hours',
      last_player_message_at = last_player_message_at - interval '11 hours' where id = ${ticketId}`.execute(ctx.db);
    await act(ctx, tenant, ticketId, [{ action: { case: "setStatus", value: { status: "assigned" } } }]);
    await act(ctx, tenant, ticketId, [{ action: { case: "setStatus", value: { status: "waiting" } } }]);
    await ctx.server.autoClose.runOnce(new Date(Date.now() + HOUR));
    expect((await getTicket(ctx, tenant, ticketId)).status).toBe("waiting");
  });

  it("closes each ticket once when several replicas sweep at the same time", async () => {
    const t = await ctx.applyTenant(tenantFile({ autoCloseWaitingAfterHours: 1 }));
    const ids = [];
    for (let i = 0; i < 30; i += 1) ids.push(await waitingTicket(t));
    const replica = await ctx.startReplica();
    const later = new Date(Date.now() + 2 * HOUR);
    const autoClosedEnds = async () =>
      Number((await sql<{ n: number }>`select count(*)::int as n from ticket_events where type = 'END' and data->>'resolutionType' = 'auto_closed'`.execute(ctx.db)).rows[0]!.n);
    const endsBefore = await autoClosedEnds();
    const counts = await Promise.all([
      ctx.server.autoClose.runOnce(later), replica.autoClose.runOnce(later), ctx.server.autoClose.runOnce(later), replica.autoClose.runOnce(later),
    ]);
    // Every close reported by a sweep wrote one END event, and no ticket was closed twice.
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe((await autoClosedEnds()) - endsBefore);
    for (const ticketId of ids) {
      expect((await getTicket(ctx, t, ticketId)).status).toBe("closed");
      expect(await endEvents(t, ticketId)).toHaveLength(1);
    }
  });

  it("survives a restart: the due state is in the database, and the periodic sweep closes it", async () => {
    const t = await ctx.applyTenant(tenantFile({ autoCloseWaitingAfterHours: 1 }));
    const ticketId = await waitingTicket(t);
    // Two hours ago it entered waiting, after the player's message.
    await sql`update tickets set waiting_since = waiting_since - interval '2 hours',
      last_player_message_at = last_player_message_at - interval '3 hours' where id = ${ticketId}`.execute(ctx.db);
    // A freshly started replica with the periodic sweep on.
    const replica = await ctx.startReplica({ AUTO_CLOSE_INTERVAL_MS: 50 });
    await eventually(async () => (await getTicket(ctx, t, ticketId)).status === "closed");
    await replica.stop();
  });
});
