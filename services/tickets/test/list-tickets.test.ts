// ListTickets (GET /tickets): filters, order, cursors and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket } from "./helpers.ts";

describe("ListTickets", () => {
  let ctx: TicketsTestContext;
  let a: TenantResult;
  let b: TenantResult;
  /** Tickets of company a by name. */
  const t: Record<string, { ticketId: string; runningId: number }> = {};

  const list = async (tenant: TenantResult, query: Record<string, unknown> = {}) => {
    const response = await ctx.tickets.listTickets({ companyId: tenant.companyId, ...query });
    return { ids: response.tickets.map((ticket) => ticket.id), tickets: response.tickets, cursor: response.nextCursor };
  };
  const idsOf = (...names: string[]) => names.map((name) => t[name]!.ticketId);

  beforeAll(async () => {
    ctx = await startTickets();
    a = await ctx.applyTenant(tenantFile());
    b = await ctx.applyTenant(tenantFile());
    const galaxy = a.games.galaxy!.id;
    const farm = a.games.farm!.id;
    // Created one after the other: the creation order is this order.
    t.one = await createTicket(ctx, a, { player: { id: "p1", email: "One@Example.com" }, tags: ["bug"], fields: { level: 3, ship: ["fighter", "explorer"] } });
    t.two = await createTicket(ctx, a, { player: { id: "p2", email: "two@example.com" }, tags: ["bug", "vip"], fields: { level: 5, ship: "fighter", note: "x" } });
    t.three = await createTicket(ctx, a, { player: { id: "p1", email: "one@example.com" }, gameId: farm, tags: ["vip", "harvest"], fields: { level: 3, crop: "corn" } });
    t.four = await createTicket(ctx, a, { player: { email: "mail-only@example.com" }, gameId: galaxy, tags: ["crash", "bug", "vip"], fields: { spender: true, ship: ["freighter"] } });
    t.five = await createTicket(ctx, a, { player: { id: "p5", email: "five@example.com" } });
    await act(ctx, a, t.two.ticketId, [{ action: { case: "setStatus", value: { status: "waiting" } } }]);
    await act(ctx, a, t.four.ticketId, [{ action: { case: "rejectTicket", value: {} } }]);
    await act(ctx, a, t.five.ticketId, [{ action: { case: "setOnHold", value: { onHold: true } } }]);
    await createTicket(ctx, b, { player: { id: "p1", email: "one@example.com" }, tags: ["bug"] });
  });
  afterAll(() => ctx?.stop());

  it("lists the company's tickets in creation order, oldest first by default", async () => {
    const { ids, cursor, tickets } = await list(a);
    expect(ids).toEqual(idsOf("one", "two", "three", "four", "five"));
    expect(tickets.map((ticket) => Number(ticket.runningId))).toEqual([1, 2, 3, 4, 5]);
    expect(cursor).toBeUndefined();
  });

  it("lists newest first with order desc", async () => {
    expect((await list(a, { order: "desc" })).ids).toEqual(idsOf("five", "four", "three", "two", "one"));
  });

  it("never shows another company's tickets", async () => {
    const { tickets } = await list(b);
    expect(tickets).toHaveLength(1);
    expect(tickets[0]!.runningId).toBe(1n);
    expect((await list(b, { ticketId: t.one!.ticketId })).ids).toEqual([]);
    expect((await list(b, { gameId: a.games.galaxy!.id })).ids).toEqual([]);
  });

  it.each([
    ["playerId", { playerId: "p1" }, ["one", "three"]],
    ["email, case-insensitively", { email: "ONE@example.com" }, ["one", "three"]],
    ["gameId", { gameId: "GAME:farm" }, ["three"]],
    ["ticketId", { ticketId: "TICKET:two" }, ["two"]],
    ["tags, all of them", { tags: '["bug","vip"]' }, ["two", "four"]],
    ["one tag", { tags: '["crash"]' }, ["four"]],
    ["a number field", { fields: '{"level":3}' }, ["one", "three"]],
    ["two fields", { fields: '{"level":5,"note":"x"}' }, ["two"]],
    ["a boolean field", { fields: '{"spender":true}' }, ["four"]],
    ["a dropdown option, single or multi-select", { fields: '{"ship":"fighter"}' }, ["one", "two"]],
    ["dropdown options, all contained", { fields: '{"ship":["explorer","fighter"]}' }, ["one"]],
    ["a one-option dropdown list", { fields: '{"ship":["fighter"]}' }, ["one", "two"]],
    ["dropdown options not all contained", { fields: '{"ship":["fighter","freighter"]}' }, []],
    ["status, any of them", { status: '["waiting","closed"]' }, ["two", "four"]],
    ["status on_hold", { status: '["on_hold"]' }, ["five"]],
    ["every filter at once (AND)", { playerId: "p1", tags: '["vip"]', fields: '{"level":3}', status: '["new"]', gameId: "GAME:farm" }, ["three"]],
    ["filters matching nothing", { playerId: "p1", status: '["closed"]' }, []],
  ] as [string, Record<string, string>, string[]][])("filters by %s", async (_name, query, expected) => {
    const resolved = Object.fromEntries(
      Object.entries(query).map(([key, value]) => [
        key,
        value.startsWith("GAME:") ? a.games[value.slice(5)]!.id : value.startsWith("TICKET:") ? t[value.slice(7)]!.ticketId : value,
      ]),
    );
    expect((await list(a, resolved)).ids).toEqual(idsOf(...expected));
  });

  describe("creation dates", () => {
    let c: TenantResult;
    const ids: string[] = [];

    beforeAll(async () => {
      c = await ctx.applyTenant(tenantFile());
      // Creation times in running-id order, as the service itself assigns them.
      const times = ["2026-01-09T23:59:59.999Z", "2026-01-10T00:00:00.000Z", "2026-01-10T23:59:59.999Z", "2026-01-11T00:00:00.000Z"];
      for (const time of times) {
        const { ticketId } = await createTicket(ctx, c);
        await sql`update tickets set created_at = ${time}::timestamptz where id = ${ticketId}`.execute(ctx.db);
        ids.push(ticketId);
      }
    });

    it.each([
      [{ createdAfter: "2026-01-10" }, [1, 2, 3]],
      [{ createdBefore: "2026-01-10" }, [0, 1, 2]],
      [{ createdAfter: "2026-01-10", createdBefore: "2026-01-10" }, [1, 2]],
      [{ createdAfter: "2026-01-10T23:59:59.999Z" }, [2, 3]],
      [{ createdBefore: "2026-01-10T00:00:00Z" }, [0, 1]],
      [{ createdAfter: "2026-01-10T02:00:00+02:00" }, [1, 2, 3]],
      [{ createdAfter: "2026-01-10T01:00:00+02:00" }, [0, 1, 2, 3]],
      [{ createdBefore: "2026-01-09T23:59:59.998Z" }, []],
    ])("bounds %j include %j", async (query, expected) => {
      expect((await list(c, query)).ids).toEqual(expected.map((i) => ids[i]));
    });
  });

  describe("pages", () => {
    it("hands out a cursor while more results exist and null at the end", async () => {
      const first = await list(a, { limit: 2 });
      expect(first.ids).toEqual(idsOf("one", "two"));
      expect(first.cursor).toEqual(expect.any(String));
      const second = await list(a, { limit: 2, cursor: first.cursor });
      expect(second.ids).toEqual(idsOf("three", "four"));
      const third = await list(a, { limit: 2, cursor: second.cursor });
      expect(third.ids).toEqual(idsOf("five"));
      expect(third.cursor).toBeUndefined();
      // Exactly filling the last page also ends with no cursor.
      const exact = await list(a, { limit: 5 });
      expect(exact.cursor).toBeUndefined();
    });

    it("pages backwards with order desc and keeps the filters", async () => {
      const first = await list(a, { order: "desc", limit: 1, tags: '["vip"]' });
      expect(first.ids).toEqual(idsOf("four"));
      const second = await list(a, { order: "desc", limit: 1, tags: '["vip"]', cursor: first.cursor });
      expect(second.ids).toEqual(idsOf("three"));
      const third = await list(a, { order: "desc", limit: 1, tags: '["vip"]', cursor: second.cursor });
      expect(third.ids).toEqual(idsOf("two"));
      expect(third.cursor).toBeUndefined();
    });

    it("refuses a cursor used with the other order", async () => {
      const { cursor } = await list(a, { limit: 1 });
      const failure = await failureOf(ctx.tickets.listTickets({ companyId: a.companyId, order: "desc", cursor }));
      expect(failure).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/query/cursor" }] } });
    });

    it("refuses an altered cursor and another company's cursor", async () => {
      const { cursor } = await list(a, { limit: 1 });
      const [payload, mac] = cursor!.split(".");
      const forged = Buffer.from(JSON.stringify({ v: 1, o: "asc", k: ["2000-01-01T00:00:00.000Z", 1] })).toString("base64url");
      for (const bad of [`${forged}.${mac}`, `${payload}.${mac!.slice(0, -2)}AA`, `${payload}x.${mac}`, "garbage"]) {
        const failure = await failureOf(ctx.tickets.listTickets({ companyId: a.companyId, cursor: bad }));
        expect(failure.details?.issues?.map((i) => i.path), bad).toEqual(["/query/cursor"]);
      }
      const failure = await failureOf(ctx.tickets.listTickets({ companyId: b.companyId, cursor }));
      expect(failure.details?.issues?.map((i) => i.path)).toEqual(["/query/cursor"]);
    });
  });

  it.each([
    [{ tags: "bug" }, "/query/tags"],
    [{ fields: "[1]" }, "/query/fields"],
    [{ status: '["open"]' }, "/query/status"],
    [{ createdAfter: "last week" }, "/query/createdAfter"],
    [{ gameId: "galaxy" }, "/query/gameId"],
    [{ ticketId: "7" }, "/query/ticketId"],
    [{ order: "up" }, "/query/order"],
    [{ limit: 0 }, "/query/limit"],
    [{ limit: 1001 }, "/query/limit"],
  ] as [Record<string, unknown>, string][])("refuses %j with a VALIDATION_ERROR on %s", async (query, path) => {
    const failure = await failureOf(ctx.tickets.listTickets({ companyId: a.companyId, ...query }));
    expect(failure).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path }] } });
  });

  it("accepts limits 1 and 1000", async () => {
    expect((await list(a, { limit: 1 })).ids).toHaveLength(1);
    expect((await list(a, { limit: 1000 })).ids).toHaveLength(5);
  });
});
