// Saved views over the real tickets service and Postgres: a user saves named searches (with or
// without a built-in view), lists only their own, by name, cannot take a name twice or save a
// view of nothing, and deletes only their own.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";

describe("saved views", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  it("are saved, listed by name for their user only, and deleted by that user only", async () => {
    const { companyId } = tenant;
    const alice = tenant.users.alice!;
    const bob = tenant.users.bob!;
    const refunds = (await ctx.tickets.createSavedView({ companyId, userId: alice, name: "Refunds", q: "refund", view: "open" })).view!;
    expect(refunds).toMatchObject({ name: "Refunds", q: "refund", view: "open" });
    await ctx.tickets.createSavedView({ companyId, userId: alice, name: "  Crashes ", q: "crash", view: "" });
    const listed = (await ctx.tickets.listSavedViews({ companyId, userId: alice })).views.map((view) => [view.name, view.q, view.view]);
    expect(listed).toEqual([["Crashes", "crash", ""], ["Refunds", "refund", "open"]]);
    expect((await ctx.tickets.listSavedViews({ companyId, userId: bob })).views).toEqual([]);

    expect((await failureOf(ctx.tickets.createSavedView({ companyId, userId: alice, name: "refunds", q: "money", view: "" }))).code).toBe("conflict");
    const nothing = await failureOf(ctx.tickets.createSavedView({ companyId, userId: alice, name: "All", q: " ", view: "" }));
    expect(nothing).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/q" }] } });
    const bad = await failureOf(ctx.tickets.createSavedView({ companyId, userId: alice, name: "", q: "x", view: "everything" }));
    expect((bad.details as { issues: { path: string }[] }).issues.map((issue) => issue.path).sort()).toEqual(["/name", "/view"]);

    expect((await failureOf(ctx.tickets.deleteSavedView({ companyId, userId: bob, id: refunds.id }))).code).toBe("not_found");
    await ctx.tickets.deleteSavedView({ companyId, userId: alice, id: refunds.id });
    expect((await ctx.tickets.listSavedViews({ companyId, userId: alice })).views.map((view) => view.name)).toEqual(["Crashes"]);
    expect((await failureOf(ctx.tickets.deleteSavedView({ companyId, userId: alice, id: randomUUID() }))).code).toBe("not_found");
  });
});
