// SLA policies through the real service: settings checked whole, clocks in a business calendar
// with time moved by the sweep's clock (runOnce(at)), pauses on hold, warnings and breaches
// published once as domain events, also with two replicas sweeping at the same moment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import type { EventEnvelope } from "@support/bus";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket } from "./helpers.ts";

const MIN = 60_000;
const berlinWeek = [1, 2, 3, 4, 5].map((day) => ({ day, start: "09:00", end: "17:00" }));

describe("SLA policies", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;

  /** Runs `change` and dates the ticket events it wrote (and the ticket, when it created it) at `iso`: the test's clock. */
  const at = async <T>(iso: string, change: () => Promise<T>, ticketId?: string): Promise<T> => {
    const before = Number((await sql<{ seq: number }>`select coalesce(max(seq), 0)::int as seq from ticket_events`.execute(ctx.db)).rows[0]!.seq);
    const result = await change();
    const id = ticketId ?? (result as { ticketId: string }).ticketId;
    await sql`update ticket_events set created_at = ${new Date(iso)} where ticket_id = ${id} and seq > ${before}`.execute(ctx.db);
    if (ticketId === undefined) await sql`update tickets set created_at = ${new Date(iso)} where id = ${id}`.execute(ctx.db);
    return result;
  };
  /** The ticket's SLA events as published, each once (the relay publishes at least once; JetStream drops repeats by id, a plain subscriber sees them). */
  const slaEvents = (ticketId: string) => [
    ...new Map(
      ctx.published
        .filter((e): e is EventEnvelope<Record<string, unknown>> => e.type.startsWith("tickets.ticket.sla_") && (e.data as { ticketId: string }).ticketId === ticketId)
        .map((e) => [e.id, e]),
    ).values(),
  ];
  /** The warnings and breaches recorded for the ticket: [metric, kind]. */
  const notices = async (ticketId: string) =>
    (await sql<{ metric: string; kind: string }>`select metric, kind from sla_notices where ticket_id = ${ticketId} order by created_at`.execute(ctx.db)).rows.map((r) => [r.metric, r.kind]);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  beforeAll(async () => {
    ctx = await startTickets();
    [tenant, other] = await Promise.all([ctx.applyTenant(tenantFile()), ctx.applyTenant(tenantFile())]);
    await ctx.tickets.setSlaSettings({
      companyId: tenant.companyId,
      settings: {
        calendar: { timeZone: "Europe/Berlin", hours: berlinWeek, holidays: ["2026-12-25"] },
        policies: [
          { id: "vip-around-the-clock", name: "VIP", tags: ["vip"], targets: { firstResponseMinutes: 60, nextResponseMinutes: 30 }, businessHours: false, pauseWhileWaiting: true },
          { id: "standard", name: "Standard", targets: { firstResponseMinutes: 120, resolutionMinutes: 16 * 60 }, businessHours: true, warnBeforeMinutes: 30 },
        ],
      },
    });
  });
  afterAll(() => ctx?.stop());

  it("refuses invalid settings with every problem by path and keeps the saved ones", async () => {
    const failure = await failureOf(ctx.tickets.setSlaSettings({
      companyId: tenant.companyId,
      settings: {
        calendar: { timeZone: "Europe/Atlantis", hours: [{ day: 1, start: "17:00", end: "09:00" }], holidays: [] },
        policies: [
          { id: "a", name: "A", targets: {}, businessHours: true },
          { id: "a", name: "", targets: { firstResponseMinutes: 0 } },
        ],
      },
    }));
    expect(failure.code).toBe("invalid_argument");
    expect(failure.details?.issues?.map((i) => i.path)).toEqual([
      "/calendar/timeZone", "/calendar/hours/0/end", "/policies/0/targets", "/policies/1/id", "/policies/1/name", "/policies/1/targets/firstResponseMinutes",
    ]);
    const { settings } = await ctx.tickets.getSlaSettings({ companyId: tenant.companyId });
    expect((settings as { policies: { id: string }[] }).policies.map((p) => p.id)).toEqual(["vip-around-the-clock", "standard"]);
    // Another company has none.
    const none = await ctx.tickets.getSlaSettings({ companyId: other.companyId });
    expect([none.settings, none.updatedAt]).toEqual([{ calendar: null, policies: [] }, undefined]);
  });

  it("counts business hours over a weekend: warns once, then breaches once, with two replicas sweeping", async () => {
    // Friday 2026-12-18 16:00 in Berlin: one working hour that day, the next on Monday from 09:00.
    const { ticketId } = await at("2026-12-18T15:00:00Z", () => createTicket(ctx, tenant));
    const untouched = await at("2026-12-18T15:00:00Z", () => createTicket(ctx, other));
    const replica = await ctx.startReplica();

    expect(await ctx.server.sla.runOnce(new Date("2026-12-19T12:00:00Z"))).toEqual({ warnings: 0, breaches: 0 });
    expect(await ctx.server.sla.runOnce(new Date("2026-12-21T08:29:00Z"))).toEqual({ warnings: 0, breaches: 0 });
    ctx.setNow(new Date("2026-12-21T08:29:00Z"));
    const sla = await ctx.tickets.getTicketSla({ companyId: tenant.companyId, ticketId });
    expect(sla.policyId).toBe("standard");
    expect(sla.clocks.map((c) => [c.metric, c.state])).toEqual([["first_response", "running"], ["resolution", "running"]]);

    // 90 of 120 working minutes at Monday 09:30 Berlin: the warning, by one replica only.
    const warnAt = new Date("2026-12-21T08:31:00Z");
    const warned = await Promise.all([ctx.server.sla.runOnce(warnAt), replica.sla.runOnce(warnAt)]);
    expect(warned.reduce((sum, r) => sum + r.warnings, 0)).toBe(1);
    const breachAt = new Date("2026-12-21T09:00:30Z");
    const breached = await Promise.all([ctx.server.sla.runOnce(breachAt), replica.sla.runOnce(breachAt), ctx.server.sla.runOnce(breachAt)]);
    expect(breached.reduce((sum, r) => sum + r.breaches, 0)).toBe(1);
    expect(await ctx.server.sla.runOnce(new Date("2026-12-21T10:00:00Z"))).toEqual({ warnings: 0, breaches: 0 });

    await eventually(() => slaEvents(ticketId).length === 2);
    await settle();
    expect(slaEvents(ticketId).map((e) => [e.type, e.data.metric, e.data.dueAt])).toEqual([
      ["tickets.ticket.sla_warning", "first_response", "2026-12-21T09:00:00.000Z"],
      ["tickets.ticket.sla_breached", "first_response", "2026-12-21T09:00:00.000Z"],
    ]);
    expect(slaEvents(ticketId)[1]!.data).toMatchObject({ policyId: "standard", policyName: "Standard", cycle: "ticket", targetMinutes: 120, assigneeId: null, actor: { type: "system", id: "sla" } });
    expect(slaEvents(untouched.ticketId)).toEqual([]);
    // support_sla_notices_total counts each notice once, on the replica that announced it.
    const counted = async (kind: string) => {
      let sum = 0;
      for (const host of [ctx.server, replica]) {
        const metric = (await host.registry.getMetricsAsJSON()).find((m) => m.name === "support_sla_notices_total");
        for (const value of metric?.values ?? []) if (value.labels.kind === kind && value.labels.metric === "first_response") sum += value.value;
      }
      return sum;
    };
    expect([await counted("warning"), await counted("breach")]).toEqual([1, 1]);
    await replica.stop();
  });

  it("pauses on hold, stops at the agent's answer, and times the next response from the player's message", async () => {
    const { ticketId } = await at("2026-12-22T10:00:00Z", () => createTicket(ctx, tenant, { tags: ["vip"] }));
    await at("2026-12-22T10:20:00Z", () => act(ctx, tenant, ticketId, [{ action: { case: "setOnHold", value: { onHold: true } } }]), ticketId);
    await at("2026-12-22T11:20:00Z", () => act(ctx, tenant, ticketId, [{ action: { case: "setOnHold", value: { onHold: false } } }]), ticketId);
    // 20 + 30 minutes counted by 11:50: on hold for an hour does not count.
    await ctx.server.sla.runOnce(new Date("2026-12-22T11:50:00Z"));
    expect(await notices(ticketId)).toEqual([]);
    ctx.setNow(new Date("2026-12-22T11:50:00Z"));
    const held = await ctx.tickets.getTicketSla({ companyId: tenant.companyId, ticketId });
    expect(held.policyId).toBe("vip-around-the-clock");
    expect(held.clocks[0]).toMatchObject({ metric: "first_response", state: "running", elapsedSeconds: 50n * 60n });

    await at("2026-12-22T11:55:00Z", () => act(ctx, tenant, ticketId, [{ action: { case: "sendMessage", value: { message: "Looking into it" } } }]), ticketId);
    await ctx.server.sla.runOnce(new Date("2026-12-22T13:00:00Z"));
    expect(await notices(ticketId)).toEqual([]);

    const reply = await at("2026-12-22T14:00:00Z", () => ctx.tickets.addEmailReply({ companyId: tenant.companyId, ticketId, message: "Still broken" }), ticketId);
    await ctx.server.sla.runOnce(new Date("2026-12-22T14:29:00Z"));
    expect(await notices(ticketId)).toEqual([]);
    await ctx.server.sla.runOnce(new Date("2026-12-22T14:31:00Z"));
    expect(await notices(ticketId)).toEqual([["next_response", "breach"]]);
    await eventually(() => slaEvents(ticketId).length === 1);
    expect(slaEvents(ticketId)[0]!.data).toMatchObject({ metric: "next_response", cycle: reply.eventId, dueAt: "2026-12-22T14:30:00.000Z", targetMinutes: 30 });
    ctx.setNow(new Date("2026-12-22T14:31:00Z"));
    const clocks = (await ctx.tickets.getTicketSla({ companyId: tenant.companyId, ticketId })).clocks.map((c) => [c.metric, c.state]);
    expect(clocks).toEqual([["first_response", "met"], ["next_response", "breached"]]);
  });

  it("does not announce what was due before the settings were saved", async () => {
    ctx.setNow(null);
    const { ticketId } = await at(new Date(Date.now() - 10 * 24 * 60 * MIN).toISOString(), () => createTicket(ctx, tenant, { tags: ["vip"] }));
    expect(await ctx.server.sla.runOnce(new Date())).toEqual({ warnings: 0, breaches: 0 });
    expect((await ctx.tickets.getTicketSla({ companyId: tenant.companyId, ticketId })).clocks[0]!.state).toBe("breached");
  });

  it("sorts the agent list by the next due time, most overdue first and tickets without a running clock last, page by page", async () => {
    ctx.setNow(null);
    const vip = (await createTicket(ctx, tenant, { tags: ["vip"] })).ticketId;
    const held = (await createTicket(ctx, tenant, { tags: ["vip"] })).ticketId;
    await act(ctx, tenant, held, [{ action: { case: "setOnHold", value: { onHold: true } } }]);
    await ctx.server.sla.runOnce();
    const galaxy = tenant.games.galaxy!.id;
    const dues = new Map((await sql<{ id: string; sla_due_at: Date | null }>`select id, sla_due_at from tickets where game_id = ${galaxy} and closed_at is null`.execute(ctx.db)).rows.map((r) => [r.id, r.sla_due_at]));
    expect(dues.get(held)).toBeNull();
    expect(dues.get(vip)).not.toBeNull();

    const listed: { id: string; due: string | undefined }[] = [];
    let cursor: string | undefined;
    do {
      const page = await ctx.tickets.listAgentTickets({ companyId: tenant.companyId, userId: tenant.users.alice!, gameIds: [galaxy], view: "open", sort: "slaDueAt", order: "asc", limit: 2, cursor });
      const summaries = new Map(page.summaries.map((summary) => [summary.ticketId, summary.slaDueAt]));
      listed.push(...page.tickets.map((ticket) => ({ id: ticket.id, due: summaries.get(ticket.id) && new Date(Number(summaries.get(ticket.id)!.seconds) * 1000).toISOString() })));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(listed.map((t) => t.id).sort()).toEqual([...dues.keys()].sort());
    const expected = [...dues].sort(([idA, a], [idB, b]) => (a?.getTime() ?? Infinity) - (b?.getTime() ?? Infinity) || (idA < idB ? -1 : 1));
    expect(listed.map((t) => dues.get(t.id)?.getTime() ?? null)).toEqual(expected.map(([, due]) => due?.getTime() ?? null));
    expect(listed.at(-1)!.due).toBeUndefined();
  });

  it("reports the targets met and breached per ISO week, policy and metric", async () => {
    // Wednesday 23 December: the weeks of 14 and 21 December (Berlin). The ticket of Friday
    // 18th missed its first response and its resolution; the VIP ticket of the 22nd had its
    // first response in time and missed the next one.
    ctx.setNow(new Date("2026-12-23T12:00:00Z"));
    const { rows } = await ctx.tickets.getSlaReport({ companyId: tenant.companyId, weeks: 2 });
    expect(rows.map((r) => [r.week, r.policyId, r.metric, r.met, r.breached])).toEqual([
      ["2026-W51", "standard", "first_response", 0, 1],
      ["2026-W51", "standard", "resolution", 0, 1],
      ["2026-W52", "vip-around-the-clock", "first_response", 1, 0],
      ["2026-W52", "vip-around-the-clock", "next_response", 0, 1],
    ]);
    expect((await failureOf(ctx.tickets.getSlaReport({ companyId: tenant.companyId, weeks: 27 }))).details?.issues).toEqual([{ path: "/weeks", message: "must be a whole number from 1 to 26" }]);
    expect((await ctx.tickets.getSlaReport({ companyId: other.companyId, weeks: 2 })).rows).toEqual([]);
    ctx.setNow(null);
  });
  it("runs the rules whose trigger is sla_breached on the ticket that missed its target, as the rule", async () => {
    const third = await ctx.applyTenant(tenantFile());
    await ctx.tickets.setSlaSettings({
      companyId: third.companyId,
      settings: { calendar: null, policies: [{ id: "all", name: "All", targets: { firstResponseMinutes: 60 }, businessHours: false, warnBeforeMinutes: 10 }] },
    });
    const rule = async (name: string, type: string) =>
      (await ctx.tickets.createRule({ companyId: third.companyId, name, enabled: true, trigger: { type }, conditions: [], actions: [{ type: "addPrivateNote", message: `${type} seen` }] })).rule!.id;
    const warningRule = await rule("Warned", "sla_warning");
    const breachRule = await rule("Breached", "sla_breached");
    const { ticketId } = await at("2027-01-04T10:00:00Z", () => createTicket(ctx, third));
    const notes = async () =>
      (await ctx.tickets.listTicketEvents({ companyId: third.companyId, ticketId })).events.flatMap((e) => (e.payload.case === "privateNote" ? [[e.actor?.id, e.payload.value.message]] : []));

    await ctx.server.sla.runOnce(new Date("2027-01-04T10:55:00Z"));
    await eventually(async () => (await notes()).length === 1);
    await ctx.server.sla.runOnce(new Date("2027-01-04T11:01:00Z"));
    await eventually(async () => (await notes()).length === 2);
    await settle();
    expect(await notes()).toEqual([[`rule:${warningRule}`, "sla_warning seen"], [`rule:${breachRule}`, "sla_breached seen"]]);
    const runs = (await ctx.tickets.listRuleRuns({ companyId: third.companyId, ticketId, limit: 10 })).runs;
    expect(runs.map((run) => [run.ruleName, run.trigger, run.outcome]).sort()).toEqual([["Breached", "sla_breached", "applied"], ["Warned", "sla_warning", "applied"]]);
  });
});
