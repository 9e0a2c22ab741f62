// Rules with the outbreak trigger over the real tickets service, content and players services,
// Postgres and NATS: a burst of alike tickets opens an incident (tickets.incident.opened names
// them all) and a later alike ticket joins it (tickets.incident.ticket_joined); the rule runs on
// every one of them once, its conditions read per ticket, and the run history has one run per
// ticket. The events delivered again (twice at once, as two replicas would) run nothing more, and
// a ticket whose run fails does not stop the others of the event. One rule comes from a tenant
// file, the other from the settings.
import { randomUUID } from "node:crypto";
import { readEvent, type DomainEvent } from "@support/events";
import { createLogger } from "@support/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClients, playerDirectory } from "../src/clients.ts";
import { runRules, type RulesContext } from "../src/rules/rule.service.ts";
import { triggersOf } from "../src/rules/rule.ts";
import { eventually, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createTicket, getTicket } from "./helpers.ts";

const WORDINGS = [
  "Server error 503 since the update, I can't log in",
  "can't log in since the update: server error 503",
  "since the update I get server error 503 and can't log in",
  "Hi, server error 503 after the update, can't log in anymore",
];
const LATE = "server error 503 since the update, can't log in, please fix";

describe("rules on outbreaks", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let rulesCtx: RulesContext;
  const ruleIds = {} as Record<"outage" | "french", string>;

  const runsOf = async (ruleId: string) => (await ctx.tickets.listRuleRuns({ companyId: tenant.companyId, ruleId, limit: 200 })).runs;
  const notesOf = async (ticketId: string) =>
    (await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId })).events.filter((e) => e.payload.case === "privateNote").map((e) => e.actor?.id);
  const published = (type: string) =>
    ctx.published.filter((envelope) => envelope.type === type && envelope.companyId === tenant.companyId).map((envelope) => {
      const read = readEvent(envelope);
      if (!("event" in read)) throw new Error(`unreadable ${type}`);
      return read.event as DomainEvent;
    });

  beforeAll(async () => {
    ctx = await startTickets();
    const file = tenantFile();
    // One rule from the tenant file (pnpm admin apply takes the trigger), one from the settings.
    const applied = (await ctx.applyTenant({
      ...file,
      tags: [...file.tags, { name: "outage", game: null }],
      rules: [{ name: "Outage", trigger: { type: "outbreak" }, actions: [{ type: "addTags", tagNames: ["outage"] }, { type: "addPrivateNote", message: "Part of an outage." }] }],
    })) as TenantResult & { rules: { name: string; id: string; action: string }[] };
    tenant = applied;
    expect(applied.rules.map(({ name, action }) => [name, action])).toEqual([["Outage", "created"]]);
    ruleIds.outage = applied.rules[0]!.id;
    const { cannedReplies, ruleTargets } = createClients(ctx.config);
    rulesCtx = {
      db: ctx.db, logger: createLogger({ service: "test", level: "silent" }), reference: ctx.server.reference, players: playerDirectory(ctx.players),
      cannedReplies, ruleTargets, supportAppUrl: ctx.config.SUPPORT_APP_URL,
    };
    await ctx.tickets.updateOutbreakSettings({ companyId: tenant.companyId, settings: { enabled: true, minTickets: 4, windowMinutes: 30, similarity: 0.6 } });
    ruleIds.french = (await ctx.tickets.createRule({
      companyId: tenant.companyId, name: "French outage", enabled: true, trigger: { type: "outbreak" }, conditions: [{ type: "language", in: ["fr"] }], actions: [{ type: "addTags", tagNames: ["vip"] }],
    })).rule!.id;
  });
  afterAll(() => ctx?.stop());

  const burst: string[] = [];
  let late: string;

  it("runs on every ticket an incident opens with and on a ticket that joins it later, once each, conditions per ticket", async () => {
    for (const [index, message] of WORDINGS.entries()) burst.push((await createTicket(ctx, tenant, { message, language: index === 1 ? "fr" : "en" })).ticketId);
    await eventually(async () => published("tickets.incident.opened").length > 0, 20_000);
    const [opened] = published("tickets.incident.opened");
    expect(opened!.type === "tickets.incident.opened" && [...opened!.data.ticketIds].sort()).toEqual([...burst].sort());
    const hasOutage = async (ticketId: string) => (await getTicket(ctx, tenant, ticketId)).tags.includes("outage");
    await eventually(async () => (await Promise.all(burst.map(hasOutage))).every(Boolean), 20_000);

    late = (await createTicket(ctx, tenant, { message: LATE })).ticketId;
    await eventually(async () => published("tickets.incident.ticket_joined").length > 0, 20_000);
    const [joined] = published("tickets.incident.ticket_joined");
    expect(joined!.data).toMatchObject({ ticketId: late, incidentId: opened!.type === "tickets.incident.opened" ? opened!.data.incidentId : "" });
    await eventually(() => hasOutage(late), 20_000);

    const all = [...burst, late];
    await eventually(async () => (await runsOf(ruleIds.outage)).length === all.length && (await runsOf(ruleIds.french)).length === 1, 10_000);
    const runs = await runsOf(ruleIds.outage);
    expect(runs.map((run) => run.ticketId).sort()).toEqual([...all].sort());
    expect(new Set(runs.map((run) => run.eventId)).size).toBe(all.length);
    for (const run of runs) expect(run).toMatchObject({ ruleName: "Outage", trigger: "outbreak", outcome: "applied", depth: 0 });
    // The joining ticket's run is recorded under the join's event.
    expect(runs.find((run) => run.ticketId === late)!.eventId).toBe(joined!.id);
    expect((await runsOf(ruleIds.french)).map((run) => [run.ticketId, run.outcome])).toEqual([[burst[1], "applied"]]);

    for (const ticketId of all) {
      expect(await notesOf(ticketId), ticketId).toEqual([`rule:${ruleIds.outage}`]);
      expect((await getTicket(ctx, tenant, ticketId)).tags.sort()).toEqual(ticketId === burst[1] ? ["outage", "vip"] : ["outage"]);
    }
    expect(published("tickets.incident.opened")).toHaveLength(1);
    expect(published("tickets.incident.ticket_joined")).toHaveLength(1);
  });

  it("runs nothing again when the incident's events are delivered again, twice at once", async () => {
    const events = [...published("tickets.incident.opened"), ...published("tickets.incident.ticket_joined")];
    expect(events).toHaveLength(2);
    for (const event of events) {
      const moments = triggersOf(event);
      expect(await Promise.all([runRules(rulesCtx, moments), runRules(rulesCtx, moments)])).toEqual([0, 0]);
    }
    expect(await runsOf(ruleIds.outage)).toHaveLength(burst.length + 1);
    expect(await runsOf(ruleIds.french)).toHaveLength(1);
    for (const ticketId of [...burst, late]) expect(await notesOf(ticketId)).toEqual([`rule:${ruleIds.outage}`]);
  });

  it("goes on with the other tickets of the event when one ticket's run fails, and runs only what is missing on the next delivery", async () => {
    const first = (await createTicket(ctx, tenant)).ticketId;
    const second = (await createTicket(ctx, tenant)).ticketId;
    const event = {
      id: randomUUID(), version: 1, type: "tickets.incident.opened", occurredAt: new Date().toISOString(), companyId: tenant.companyId,
      // The middle "ticket" makes its run throw (not a uuid: Postgres refuses the lookup).
      data: { incidentId: randomUUID(), gameId: tenant.games.galaxy!.id, title: "t", openedAt: new Date().toISOString(), ticketIds: [first, "not-a-ticket", second] },
    } as DomainEvent;
    await expect(runRules(rulesCtx, triggersOf(event))).rejects.toThrow("rules failed on 1 of the event's 3 tickets");
    expect(await notesOf(first)).toEqual([`rule:${ruleIds.outage}`]);
    expect(await notesOf(second)).toEqual([`rule:${ruleIds.outage}`]);
    await expect(runRules(rulesCtx, triggersOf(event))).rejects.toThrow();
    expect(await notesOf(first)).toEqual([`rule:${ruleIds.outage}`]);
    expect(await notesOf(second)).toEqual([`rule:${ruleIds.outage}`]);
    expect((await runsOf(ruleIds.outage)).filter((run) => run.ticketId === first || run.ticketId === second)).toHaveLength(2);
  });
});
