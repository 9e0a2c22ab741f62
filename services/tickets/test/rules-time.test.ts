// Time rules ("in a status for N hours without a player reply") over the real tickets service,
// Postgres and NATS: the sweep (time injected) runs a rule once per ticket each time the ticket
// enters the status, not before its hours, not after a player's message, only for the rule's
// company, and exactly once when several replicas sweep at the same time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket, getTicket } from "./helpers.ts";

const HOUR = 3_600_000;
const later = (hours: number) => new Date(Date.now() + hours * HOUR);

describe("time rules", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;
  let ruleId: string;

  const inStatus = async (t: TenantResult, status: "waiting" | "on_hold") => {
    const { ticketId } = await createTicket(ctx, t);
    await act(ctx, t, ticketId, [status === "waiting" ? { action: { case: "setStatus", value: { status } } } : { action: { case: "setOnHold", value: { onHold: true } } }]);
    return ticketId;
  };
  const runsOf = async (ticketId: string) => (await ctx.tickets.listRuleRuns({ companyId: tenant.companyId, ticketId, limit: 50 })).runs;
  const notes = async (t: TenantResult, ticketId: string) =>
    (await ctx.tickets.listTicketEvents({ companyId: t.companyId, ticketId })).events.filter((e) => e.payload.case === "privateNote");

  beforeAll(async () => {
    ctx = await startTickets({ RULES_SWEEP_INTERVAL_MS: 0 });
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
    const { rule } = await ctx.tickets.createRule({
      companyId: tenant.companyId,
      name: "Nudge after 48 h",
      enabled: true,
      trigger: { type: "time", status: "waiting", hours: 48 },
      conditions: [],
      actions: [{ type: "addTags", tagNames: ["vip"] }, { type: "addPrivateNote", message: "No answer for 48 hours." }],
    });
    ruleId = rule!.id;
  });
  afterAll(() => ctx?.stop());

  it("runs once the hours are up, once per entry into the status, as the rule", async () => {
    const waiting = await inStatus(tenant, "waiting");
    const fresh = (await createTicket(ctx, tenant)).ticketId;
    const elsewhere = await inStatus(other, "waiting");

    expect(await ctx.server.rulesSweep.runOnce(later(47))).toBe(0);
    expect(await ctx.server.rulesSweep.runOnce(later(49))).toBeGreaterThanOrEqual(1);
    expect((await getTicket(ctx, tenant, waiting)).tags).toEqual(["vip"]);
    const [note] = await notes(tenant, waiting);
    expect(note?.actor).toMatchObject({ type: "system", id: `rule:${ruleId}` });
    expect((await runsOf(waiting)).map((run) => [run.ruleName, run.trigger, run.outcome])).toEqual([["Nudge after 48 h", "time", "applied"]]);
    // Again: the same entry into waiting runs nothing more.
    await ctx.server.rulesSweep.runOnce(later(60));
    expect(await notes(tenant, waiting)).toHaveLength(1);
    expect((await getTicket(ctx, tenant, fresh)).tags).toEqual([]);
    expect(await notes(other, elsewhere)).toHaveLength(0);

    // Out of waiting and back in: a new entry, the rule runs again after its hours.
    await act(ctx, tenant, waiting, [{ action: { case: "setStatus", value: { status: "assigned" } } }]);
    await act(ctx, tenant, waiting, [{ action: { case: "setStatus", value: { status: "waiting" } } }]);
    await ctx.server.rulesSweep.runOnce(later(47));
    expect(await notes(tenant, waiting)).toHaveLength(1);
    await ctx.server.rulesSweep.runOnce(later(49));
    expect(await notes(tenant, waiting)).toHaveLength(2);
  });

  it("waits for the player: a message since the ticket entered the status holds it back", async () => {
    const { rule } = await ctx.tickets.createRule({
      companyId: tenant.companyId, name: "Held a day", enabled: true, trigger: { type: "time", status: "on_hold", hours: 24 }, conditions: [], actions: [{ type: "addPrivateNote", message: "On hold for a day." }],
    });
    const quiet = await inStatus(tenant, "on_hold");
    const answered = await inStatus(tenant, "on_hold");
    // The player wrote after the ticket went on hold (a message keeps a held ticket on hold).
    await sql`update tickets set last_player_message_at = clock_timestamp() + interval '1 minute' where id = ${answered}`.execute(ctx.db);
    await ctx.server.rulesSweep.runOnce(later(25));
    expect((await runsOf(quiet)).map((run) => run.ruleId)).toEqual([rule!.id]);
    expect(await runsOf(answered)).toEqual([]);
  });

  it("runs once per ticket when several replicas sweep at the same time", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) ids.push(await inStatus(tenant, "waiting"));
    const replica = await ctx.startReplica({ RULES_SWEEP_INTERVAL_MS: 0 });
    const when = later(49);
    await Promise.all([ctx.server.rulesSweep.runOnce(when), replica.rulesSweep.runOnce(when), ctx.server.rulesSweep.runOnce(when), replica.rulesSweep.runOnce(when)]);
    for (const ticketId of ids) {
      expect(await notes(tenant, ticketId)).toHaveLength(1);
      expect(await runsOf(ticketId)).toHaveLength(1);
    }
  });

  it("refuses a time trigger without a status it can stay in or with hours out of range", async () => {
    const refused = await failureOf(ctx.tickets.createRule({
      companyId: tenant.companyId, name: "Bad", enabled: true, trigger: { type: "time", status: "closed", hours: 0 }, conditions: [], actions: [{ type: "resolveTicket" }],
    }));
    expect(refused.code).toBe("invalid_argument");
    expect((refused.details as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual(["/trigger/status", "/trigger/hours"]);
  });
});
