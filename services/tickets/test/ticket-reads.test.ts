// What an agent's list shows of each ticket: its subject (the first line of the player's first
// message) and whether it is unread for the user, who marks it read by looking at it; a later
// player message makes it unread again. Over the real tickets service and Postgres.
import { randomUUID } from "node:crypto";
import { sql } from "@support/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subjectOf } from "../src/reads/ticket-read.ts";
import { failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createTicket } from "./helpers.ts";

describe("subjects and the unread marker of agents' lists", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  const summaryOf = async (userId: string, ticketId: string) => {
    const page = await ctx.tickets.listAgentTickets({ companyId: tenant.companyId, userId, gameIds: [tenant.games.galaxy!.id], ticketId });
    return page.summaries.find((summary) => summary.ticketId === ticketId);
  };

  it("shows the first line of the first message as the subject, unread until the user looks at it", async () => {
    const marker = randomUUID().slice(0, 8);
    const { ticketId } = await createTicket(ctx, tenant, { message: `\n  My ship   vanished ${marker}\nafter the jump, please help` });
    const alice = tenant.users.alice!;
    expect(await summaryOf(alice, ticketId)).toEqual({ $typeName: "tickets.v1.AgentTicketSummary", ticketId, subject: `My ship vanished ${marker}`, unread: true });

    await ctx.tickets.markTicketRead({ companyId: tenant.companyId, ticketId, userId: alice });
    expect((await summaryOf(alice, ticketId))?.unread).toBe(false);
    // Another user has not looked at it yet.
    expect((await summaryOf(tenant.users.bob!, ticketId))?.unread).toBe(true);

    // A player message after the user's look makes it unread again.
    await sql`update tickets set last_player_message_at = now() + interval '1 minute' where id = ${ticketId}`.execute(ctx.db);
    expect((await summaryOf(alice, ticketId))?.unread).toBe(true);
  });

  it("refuses to mark another company's ticket or an unknown one", async () => {
    const { ticketId } = await createTicket(ctx, tenant);
    expect((await failureOf(ctx.tickets.markTicketRead({ companyId: other.companyId, ticketId, userId: other.users.alice! }))).code).toBe("not_found");
    expect((await failureOf(ctx.tickets.markTicketRead({ companyId: tenant.companyId, ticketId: randomUUID(), userId: tenant.users.alice! }))).code).toBe("not_found");
  });

  it("cuts a long first line at a word, with an ellipsis", () => {
    const long = `${"word ".repeat(40)}end`;
    const subject = subjectOf(long);
    expect(subject.length).toBeLessThanOrEqual(141);
    expect(subject.endsWith("word…")).toBe(true);
    expect(subjectOf("")).toBe("");
  });
});
