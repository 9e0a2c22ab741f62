// Outbreak detection in the tickets service (docs/automation.md, "Outbreaks"), against the real
// content and players services, Postgres and NATS, with two tickets replicas consuming the same
// events: a burst created at once opens exactly one incident with every ticket, published once;
// a redelivered event links nothing twice; the settings are checked.
import { readEvent } from "@support/events";
import { createLogger } from "@support/logging";
import { sql } from "@support/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectOutbreak } from "../src/outbreaks/outbreaks.service.ts";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createTicket, inParallel } from "./helpers.ts";

const WORDINGS = [
  "Server error 503 since the update, I can't log in",
  "can't log in since the update: server error 503",
  "since the update I get server error 503 and can't log in",
  "Hi, server error 503 after the update, can't log in anymore",
];

describe("outbreak detection", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets();
    await ctx.startReplica();
    tenant = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  it("refuses settings out of range at their paths and keeps the stored ones", async () => {
    const failure = await failureOf(ctx.tickets.updateOutbreakSettings({ companyId: tenant.companyId, settings: { enabled: true, minTickets: 4, windowMinutes: 2, similarity: 0.1 } }));
    expect(failure.code).toBe("invalid_argument");
    expect(failure.details?.issues?.map((issue) => issue.path)).toEqual(["/windowMinutes", "/similarity"]);
    expect((await ctx.tickets.getOutbreakSettings({ companyId: tenant.companyId })).settings).toMatchObject({ enabled: false, minTickets: 10 });
  });

  it("opens one incident for a burst handled by two replicas at once, publishes it once, and ignores a redelivery", async () => {
    await ctx.tickets.updateOutbreakSettings({ companyId: tenant.companyId, settings: { enabled: true, minTickets: 4, windowMinutes: 30, similarity: 0.6 } });
    const created = await inParallel(12, 12, async (index) => (await createTicket(ctx, tenant, { message: `${WORDINGS[index % WORDINGS.length]} (${index})` })).ticketId);
    const companyId = tenant.companyId;
    const linkedCount = async () => Number((await sql<{ n: string }>`select count(*) as n from incident_tickets it join incidents i on i.id = it.incident_id where i.company_id = ${companyId}`.execute(ctx.db)).rows[0]!.n);
    await eventually(async () => (await linkedCount()) === created.length, 20_000);

    const { incidents } = await ctx.tickets.listIncidents({ companyId, gameIds: [tenant.games.galaxy!.id] });
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ status: "open", ticketCount: created.length, gameId: tenant.games.galaxy!.id });
    const opened = ctx.published.filter((event) => event.type === "tickets.incident.opened" && event.companyId === companyId);
    // Two replicas' outbox relays may both publish one outbox row (the stream keeps it once, by
    // its id): one event means one id.
    expect(new Set(opened.map((event) => event.id)).size, JSON.stringify(opened)).toBe(1);
    const read = readEvent(opened[0]!);
    const data = ("event" in read ? read.event.data : read) as { incidentId: string; gameId: string; ticketIds: string[] };
    expect(data).toMatchObject({ incidentId: incidents[0]!.id, gameId: tenant.games.galaxy!.id });
    // The tickets that opened it (at least the minimum); the others joined after.
    expect(data.ticketIds.length).toBeGreaterThanOrEqual(4);
    expect(created).toEqual(expect.arrayContaining(data.ticketIds));
    // Another game's agent scope sees nothing of it.
    expect((await ctx.tickets.listIncidents({ companyId, gameIds: [tenant.games.farm!.id] })).incidents).toEqual([]);
    expect((await failureOf(ctx.tickets.getIncident({ companyId, incidentId: incidents[0]!.id, gameIds: [tenant.games.farm!.id] }))).code).toBe("not_found");

    const linkedEvents = async () => Number((await sql<{ n: string }>`select count(*) as n from ticket_events where company_id = ${companyId} and type = 'INCIDENT_LINKED'`.execute(ctx.db)).rows[0]!.n);
    expect(await linkedEvents()).toBe(created.length);
    const redelivered = await detectOutbreak({ db: ctx.db, logger: createLogger({ service: "test", level: "silent" }) }, companyId, created[0]!, tenant.games.galaxy!.id);
    expect(redelivered).toEqual({ kind: "none" });
    expect(await linkedEvents()).toBe(created.length);
    expect(await linkedCount()).toBe(created.length);
  });
});
