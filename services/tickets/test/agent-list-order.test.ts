// The order of an agent list across several games: sorted by last activity, each game's first
// page is read on its own and the pages merged (ticket.repository's firstTickets). Whatever the
// SQL, the pages must be the games' tickets in (last activity, running number) order, every
// ticket once, in both directions, with a view and with a search.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket, getTicket } from "./helpers.ts";

describe("ListAgentTickets across several games", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let games: string[];
  let user: string;
  const ids: string[] = [];

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    games = [tenant.games.galaxy!.id, tenant.games.farm!.id];
    user = tenant.users.alice!;
    // Eight tickets, alternately of each game; then activity on some of them in another order,
    // so that last activity orders them unlike creation and interleaves the games.
    for (let i = 0; i < 8; i++) {
      const gameId = games[i % 2]!;
      ids.push((await createTicket(ctx, tenant, { gameId, message: `Order check ${i} mergedorderword` })).ticketId);
    }
    for (const i of [2, 7, 0, 5]) await act(ctx, tenant, ids[i]!, [{ action: { case: "addPrivateNote", value: { message: `note ${i}` } } }]);
    // Closed: not in the open view.
    await act(ctx, tenant, ids[3]!, [{ action: { case: "resolveTicket", value: {} } }]);
  });
  afterAll(() => ctx?.stop());

  /** The expected order: the tickets' own last activity times, newest first (then the running number). */
  const expected = async (order: "asc" | "desc", only: (ticket: { status: string }) => boolean = () => true) => {
    const tickets = await Promise.all(ids.map((id) => getTicket(ctx, tenant, id)));
    const time = (ticket: (typeof tickets)[number]) => Number(ticket.lastActivityAt!.seconds) * 1e9 + ticket.lastActivityAt!.nanos;
    const sorted = tickets.filter(only).sort((a, b) => time(a) - time(b) || Number(a.runningId - b.runningId));
    return (order === "asc" ? sorted : sorted.reverse()).map((ticket) => ticket.id);
  };

  /** Every page of the list, two tickets a page, following the cursor. */
  const pages = async (query: { order: "asc" | "desc"; view?: string; q?: string }) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await ctx.tickets.listAgentTickets({ companyId: tenant.companyId, userId: user, gameIds: games, sort: "lastActivityAt", limit: 2, ...query, ...(cursor !== undefined ? { cursor } : {}) });
      seen.push(...answer.tickets.map((ticket) => ticket.id));
      if (answer.nextCursor === undefined || answer.nextCursor === "") return seen;
      cursor = answer.nextCursor;
    }
    throw new Error("more pages than tickets");
  };

  it("pages through both games by last activity, newest first and oldest first", async () => {
    expect(await pages({ order: "desc" })).toEqual(await expected("desc"));
    expect(await pages({ order: "asc" })).toEqual(await expected("asc"));
  });

  it("keeps a view's condition in every game's page", async () => {
    expect(await pages({ order: "desc", view: "open" })).toEqual(await expected("desc", (ticket) => ticket.status !== "closed"));
  });

  it("searches in the same order", async () => {
    expect(await pages({ order: "desc", q: "mergedorderword" })).toEqual(await expected("desc"));
  });
});
