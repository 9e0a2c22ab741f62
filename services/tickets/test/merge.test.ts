// MergeTickets: a ticket merged into another of the same player and game, against the real
// content and players services, Postgres and NATS.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket, getTicket, type CreateInit } from "./helpers.ts";

describe("MergeTickets", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;
  let alice: string;
  let bob: string;

  /** Two tickets of one new player (by external id) in the galaxy game. */
  const pair = async (source: Partial<CreateInit> = {}, target: Partial<CreateInit> = {}) => {
    const unique = randomUUID();
    const player = { id: `player-${unique}`, name: "Pat", email: `pat-${unique}@example.com` };
    const t = await createTicket(ctx, tenant, { player, message: `The first problem ${unique}`, ...target });
    const s = await createTicket(ctx, tenant, { player, message: `Another thing entirely ${unique}`, skipDuplicateCheck: true, ...source });
    return { source: s, target: t, player };
  };
  const merge = (sourceTicketId: string, targetTicketId: string, actingUserId = alice, companyId = tenant.companyId) =>
    ctx.tickets.mergeTickets({ companyId, sourceTicketId, targetTicketId, actingUserId });
  const events = async (ticketId: string) => (await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId })).events;
  /** Everything stored of a ticket: the row and every event, audit ones included. */
  const stored = async (ticketId: string) => ({
    row: (await sql`select * from tickets where id = ${ticketId}`.execute(ctx.db)).rows[0],
    events: (await sql<{ id: string; type: string }>`select id, type, data, actor from ticket_events where ticket_id = ${ticketId} order by seq`.execute(ctx.db)).rows,
  });

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
    alice = tenant.users.alice!; // galaxy only
    bob = tenant.users.bob!; // farm only
  });
  afterAll(() => ctx?.stop());

  it("copies the source's conversation into the target, adds its tags, notes it on both and closes the source as merged", async () => {
    const { source, target } = await pair({ tags: ["bug", "crash"] }, { tags: ["vip"] });
    await act(ctx, tenant, source.ticketId, [
      { action: { case: "sendMessage", value: { message: "Which server?", userId: alice } } },
      { action: { case: "addPrivateNote", value: { message: "probably the EU one", userId: alice } } },
    ]);
    const sourceBefore = await events(source.ticketId);

    const response = await merge(source.ticketId, target.ticketId);

    expect(response.source).toMatchObject({ id: source.ticketId, status: "closed", resolutionType: "merged", followUpTicketId: target.ticketId });
    expect(response.target).toMatchObject({ id: target.ticketId, status: "new", tags: ["vip", "bug", "crash"] });
    expect(await getTicket(ctx, tenant, source.ticketId)).toMatchObject({ status: "closed", resolutionType: "merged", followUpTicketId: target.ticketId });

    const merged = await events(target.ticketId);
    // The target's own first message, the three copies in the source's order, then the note.
    expect(merged.map((e) => e.payload.case)).toEqual(["playerMessage", "playerMessage", "agentMessage", "privateNote", "privateNote"]);
    const copies = merged.slice(1, 4);
    copies.forEach((copy, index) => {
      const original = sourceBefore[index]!;
      expect(copy.id).not.toBe(original.id);
      expect(copy.payload).toEqual(original.payload);
      expect(copy.actor).toEqual(original.actor);
      expect(copy.mergedFrom).toMatchObject({ ticketId: source.ticketId, runningId: BigInt(source.runningId), eventId: original.id, createdAt: original.createdAt });
    });
    expect(merged[0]!.mergedFrom).toBeUndefined();
    expect(merged[4]).toMatchObject({
      actor: { type: "user", id: alice },
      payload: { case: "privateNote", value: { message: `Merged #${source.runningId} into this ticket.` } },
    });
    expect(merged[4]!.mergedFrom).toBeUndefined();

    // The source keeps its conversation, gains the note, and has no END (merged is not one of END's resolutions).
    const closed = await events(source.ticketId);
    expect(closed.map((e) => e.payload.case)).toEqual(["playerMessage", "agentMessage", "privateNote", "privateNote"]);
    expect(closed[3]).toMatchObject({ actor: { type: "user", id: alice }, payload: { value: { message: `Merged into #${target.runningId}.` } } });
    const audit = (await stored(source.ticketId)).events.map((e) => e.type);
    expect(audit.slice(-1)).toEqual(["STATUS_CHANGED"]);
  });

  it("publishes the source's status_changed and closed (with followUpTicketId), the target's tags_changed and merged; no message_added for copies", async () => {
    const { source, target } = await pair({ tags: ["bug"] });
    await merge(source.ticketId, target.ticketId);
    type Data = { ticketId?: string };
    const ofPair = () => ctx.published.filter((e) => [source.ticketId, target.ticketId].includes((e.data as Data).ticketId ?? ""));
    await eventually(() => ofPair().some((e) => e.type === "tickets.ticket.merged"));
    // Creation events (created, message_added of each first message) come first.
    const mergeEvents = ofPair().filter((e) => e.type !== "tickets.ticket.created" && e.type !== "tickets.ticket.message_added");
    expect(mergeEvents.map((e) => [e.type, (e.data as Data).ticketId])).toEqual([
      ["tickets.ticket.status_changed", source.ticketId],
      ["tickets.ticket.closed", source.ticketId],
      ["tickets.ticket.tags_changed", target.ticketId],
      ["tickets.ticket.merged", source.ticketId],
    ]);
    expect(ofPair().filter((e) => e.type === "tickets.ticket.message_added")).toHaveLength(2);
    expect(mergeEvents[0]!.data).toMatchObject({ from: "new", to: "closed", resolutionType: "merged", actor: { type: "user", id: alice } });
    expect(mergeEvents[1]!.data).toMatchObject({ resolutionType: "merged", followUpTicketId: target.ticketId });
    expect(mergeEvents[2]!.data).toMatchObject({ added: ["bug"], removed: [], tags: ["bug"] });
    expect(mergeEvents[3]!.data).toMatchObject({
      targetTicketId: target.ticketId, targetRunningId: target.runningId, copiedEvents: 1, addedTags: ["bug"], actor: { type: "user", id: alice },
    });
  });

  it("takes a ticket without an external player id as the same player's by email, case-insensitively", async () => {
    const email = `casey-${randomUUID()}@example.com`;
    const target = await createTicket(ctx, tenant, { player: { email } });
    const source = await createTicket(ctx, tenant, { player: { email: email.toUpperCase() }, message: `second ${randomUUID()}` });
    await merge(source.ticketId, target.ticketId);
    expect((await getTicket(ctx, tenant, source.ticketId)).resolutionType).toBe("merged");
  });

  it("lets the web sessions that opened the source see the target", async () => {
    const sessionId = randomUUID();
    const unique = randomUUID();
    const player = { id: `player-${unique}`, email: `p-${unique}@example.com` };
    const target = await createTicket(ctx, tenant, { player, message: `first ${unique}` });
    const created = await ctx.playerSide.createPlayerTicket({
      companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, sessionId, message: `second ${unique}`, language: "en", player,
    });
    await merge(created.ticketId, target.ticketId);
    const sessions = await sql<{ ticket_id: string }>`select ticket_id from session_tickets where session_id = ${sessionId} order by ticket_id`.execute(ctx.db);
    expect(sessions.rows.map((row) => row.ticket_id).sort()).toEqual([created.ticketId, target.ticketId].sort());
  });

  describe("refuses, writing nothing", () => {
    /** Runs a refused merge and checks that neither ticket changed at all. */
    const refused = async (sourceId: string, targetId: string, call: () => Promise<unknown>) => {
      const before = [await stored(sourceId), await stored(targetId)];
      const failure = await failureOf(call());
      expect([await stored(sourceId), await stored(targetId)]).toEqual(before);
      return failure;
    };

    it("a ticket into itself (400 at /targetTicketId)", async () => {
      const { source } = await pair();
      const failure = await refused(source.ticketId, source.ticketId, () => merge(source.ticketId, source.ticketId));
      expect(failure).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/targetTicketId", message: expect.stringMatching(/itself/) }] } });
    });

    it("a ticket of another player (400)", async () => {
      const { source } = await pair();
      const { target } = await pair();
      const failure = await refused(source.ticketId, target.ticketId, () => merge(source.ticketId, target.ticketId));
      expect(failure).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/targetTicketId", message: "must be a ticket of the same player" }] } });
    });

    it("the same player's ticket in another game (400)", async () => {
      const { source, player } = await pair();
      const farm = await createTicket(ctx, tenant, { gameId: tenant.games.farm!.id, player });
      const failure = await refused(source.ticketId, farm.ticketId, () => merge(source.ticketId, farm.ticketId));
      expect(failure).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/targetTicketId", message: "must be a ticket of the same game" }] } });
    });

    it("a closed source, resolved or rejected (409)", async () => {
      for (const resolution of ["resolveTicket", "rejectTicket"] as const) {
        const { source, target } = await pair();
        await act(ctx, tenant, source.ticketId, [{ action: { case: resolution, value: {} } }]);
        const failure = await refused(source.ticketId, target.ticketId, () => merge(source.ticketId, target.ticketId));
        expect(failure).toMatchObject({ code: "conflict", message: `ticket #${source.runningId} is closed and cannot be merged` });
      }
    });

    it("a closed target (409)", async () => {
      const { source, target } = await pair();
      await act(ctx, tenant, target.ticketId, [{ action: { case: "resolveTicket", value: {} } }]);
      const failure = await refused(source.ticketId, target.ticketId, () => merge(source.ticketId, target.ticketId));
      expect(failure).toMatchObject({ code: "conflict", message: `ticket #${target.runningId} is closed: merge into an open ticket` });
    });

    it("an already merged source (409)", async () => {
      const { source, target } = await pair();
      await merge(source.ticketId, target.ticketId);
      const failure = await refused(source.ticketId, target.ticketId, () => merge(source.ticketId, target.ticketId));
      expect(failure.code).toBe("conflict");
    });

    it("tickets of another company, or that do not exist (404)", async () => {
      const { source } = await pair();
      const foreign = await createTicket(ctx, other);
      expect(await refused(source.ticketId, foreign.ticketId, () => merge(source.ticketId, foreign.ticketId))).toMatchObject({ code: "not_found", message: "target ticket not found" });
      expect(await refused(foreign.ticketId, source.ticketId, () => merge(foreign.ticketId, source.ticketId))).toMatchObject({ code: "not_found", message: "ticket not found" });
      expect(await failureOf(merge(source.ticketId, randomUUID()))).toMatchObject({ code: "not_found" });
      expect(await failureOf(merge(source.ticketId, "not-a-uuid"))).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/targetTicketId" }] } });
    });

    it("a user without access to the tickets' game (400 at /actingUserId)", async () => {
      const { source, target } = await pair();
      const failure = await refused(source.ticketId, target.ticketId, () => merge(source.ticketId, target.ticketId, bob));
      expect(failure).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/actingUserId" }] } });
    });

    it("a failure after the target was written rolls the target back too (one transaction)", async () => {
      const { source, target } = await pair({ tags: ["bug"] });
      // The source is written after the target: make that write fail for this ticket only.
      await sql`create or replace function refuse_merge_source() returns trigger language plpgsql as $$
        begin
          if new.id = ${sql.lit(source.ticketId)}::uuid and new.resolution_type = 'merged' then raise exception 'refused by the test'; end if;
          return new;
        end $$`.execute(ctx.db);
      await sql`create trigger refuse_merge_source before update on tickets for each row execute function refuse_merge_source()`.execute(ctx.db);
      try {
        const failure = await refused(source.ticketId, target.ticketId, () => merge(source.ticketId, target.ticketId));
        expect(failure.code).toBe("internal");
      } finally {
        await sql`drop trigger refuse_merge_source on tickets`.execute(ctx.db);
        await sql`drop function refuse_merge_source()`.execute(ctx.db);
      }
      // Then it works, once.
      await merge(source.ticketId, target.ticketId);
      expect((await events(target.ticketId)).filter((e) => e.mergedFrom !== undefined)).toHaveLength(1);
    });
  });

  it("serialises two merges of one pair in opposite directions: one wins, the other is a 409", async () => {
    const { source, target } = await pair();
    const results = await Promise.allSettled([merge(source.ticketId, target.ticketId), merge(target.ticketId, source.ticketId)]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((result) => result.status === "rejected");
    expect(await failureOf(Promise.reject(rejected!.reason))).toMatchObject({ code: "conflict" });
    const [a, b] = [await getTicket(ctx, tenant, source.ticketId), await getTicket(ctx, tenant, target.ticketId)];
    expect([a.status, b.status].sort()).toEqual(["closed", "new"]);
  });
});
