// ErasePlayerTickets, the tickets step of a player's erasure: every ticket of the player
// goes with its events, breadcrumbs, tags and field values, other players keep theirs, a second
// call deletes nothing, and no new ticket of the erased player is accepted.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createRequest, createTicket, getTicket } from "./helpers.ts";

describe("ErasePlayerTickets", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  async function rows(table: "tickets" | "ticket_events" | "ticket_breadcrumbs", ticketIds: string[]): Promise<number> {
    const column = table === "tickets" ? sql.ref("id") : sql.ref("ticket_id");
    const result = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${column} = any(${ticketIds}::uuid[])`.execute(ctx.db);
    return result.rows[0]!.n;
  }

  it("deletes every ticket of the player with its events and breadcrumbs, and counts them", async () => {
    const player = { id: "erase-me", email: "erase-me@example.com", name: "Eraser" };
    const first = await createTicket(ctx, tenant, { player, tags: ["bug"], fields: { level: 3, note: "x" } });
    const second = await createTicket(ctx, tenant, { player, message: "another problem entirely", skipDuplicateCheck: true });
    await act(ctx, tenant, first.ticketId, [
      { action: { case: "sendMessage", value: { message: "reply" } } },
      { action: { case: "resolveTicket", value: {} } },
    ]);
    await ctx.tickets.addTicketBreadcrumbs({
      companyId: tenant.companyId,
      ticketId: second.ticketId,
      breadcrumbs: [{ message: "opened menu", clientOccurredAt: timestampFromDate(new Date()) }, { message: "crashed", clientOccurredAt: timestampFromDate(new Date()) }],
    });
    const keep = await createTicket(ctx, tenant, { player: { id: "keep-me", email: "keep@example.com" } });
    const servicePlayerId = (await getTicket(ctx, tenant, first.ticketId)).servicePlayerId!;
    const ids = [first.ticketId, second.ticketId];
    const events = await rows("ticket_events", ids);
    expect(events).toBeGreaterThanOrEqual(4);

    const erased = await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId });
    expect(erased).toMatchObject({ deletedTickets: 2, deletedEvents: events, deletedBreadcrumbs: 2, deletedTags: 1, deletedFieldValues: 2 });
    expect(await rows("tickets", ids)).toBe(0);
    expect(await rows("ticket_events", ids)).toBe(0);
    expect(await rows("ticket_breadcrumbs", ids)).toBe(0);
    expect((await failureOf(ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId: first.ticketId }))).code).toBe("not_found");
    expect((await failureOf(ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId: second.ticketId }))).code).toBe("not_found");
    expect((await ctx.tickets.listTickets({ companyId: tenant.companyId, playerId: "erase-me" })).tickets).toEqual([]);
    expect((await getTicket(ctx, tenant, keep.ticketId)).id).toBe(keep.ticketId);

    await eventually(() => ctx.published.filter((e) => e.type === "tickets.ticket.deleted" && ids.includes((e.data as { ticketId: string }).ticketId)).length === 2);
    const deleted = ctx.published.filter((e) => e.type === "tickets.ticket.deleted" && ids.includes((e.data as { ticketId: string }).ticketId));
    expect(deleted.map((e) => e.data)).toEqual([
      { ticketId: first.ticketId, runningId: first.runningId, gameId: tenant.games.galaxy!.id, reason: "player_erased" },
      { ticketId: second.ticketId, runningId: second.runningId, gameId: tenant.games.galaxy!.id, reason: "player_erased" },
    ]);
  });

  it("is idempotent: a second call deletes nothing and succeeds", async () => {
    const { ticketId } = await createTicket(ctx, tenant, { player: { id: "twice", email: "twice@example.com" } });
    const servicePlayerId = (await getTicket(ctx, tenant, ticketId)).servicePlayerId!;
    expect((await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId })).deletedTickets).toBe(1);
    expect(await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId })).toMatchObject({
      deletedTickets: 0, deletedEvents: 0, deletedBreadcrumbs: 0, deletedTags: 0, deletedFieldValues: 0,
    });
  });

  it("refuses new tickets of the erased player until its record is gone (503 unavailable)", async () => {
    const request = createRequest(tenant, { player: { id: "late", email: "late@example.com" } });
    const { ticketId } = await ctx.tickets.createTicket(request);
    const servicePlayerId = (await getTicket(ctx, tenant, ticketId)).servicePlayerId!;
    await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId });
    const refused = await failureOf(ctx.tickets.createTicket({ ...request, message: "a new question", skipDuplicateCheck: true }));
    expect(refused.code).toBe("unavailable");
    expect((await ctx.tickets.listTickets({ companyId: tenant.companyId, playerId: "late" })).tickets).toEqual([]);
  });

  it("touches nothing of another company and refuses a malformed player id", async () => {
    const { ticketId } = await createTicket(ctx, other, { player: { id: "foreign", email: "foreign@example.com" } });
    const servicePlayerId = (await getTicket(ctx, other, ticketId)).servicePlayerId!;
    expect((await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId })).deletedTickets).toBe(0);
    expect((await getTicket(ctx, other, ticketId)).id).toBe(ticketId);
    expect((await failureOf(ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId: "nope" }))).code).toBe("invalid_argument");
  });
});
