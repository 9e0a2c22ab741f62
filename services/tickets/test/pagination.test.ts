// Running ids and pagination under concurrency: gapless ids from concurrent creations,
// and paging that never skips or repeats a ticket while tickets are being created.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createRequest, inParallel } from "./helpers.ts";

describe("running ids and pagination under concurrency", () => {
  let ctx: TicketsTestContext;

  beforeAll(async () => {
    ctx = await startTickets();
  });
  afterAll(() => ctx?.stop());

  // 200 creations sent at once queue on the company's running-id counter and the service's
  // connection pool: on a loaded machine the last ones answer after more than the client's
  // default 10 s deadline. These tests are about ids and pages, not latency.
  const create = (tenant: TenantResult, n: number) =>
    ctx.tickets.createTicket(
      createRequest(tenant, { message: `ticket ${n}`, skipDuplicateCheck: true, player: { id: `p-${n % 50}`, email: `p${n % 50}@example.com` } }),
      { timeoutMs: 50_000 },
    );

  it("gives 200 concurrent creations in one company the running ids 1..200", async () => {
    const tenant = await ctx.applyTenant(tenantFile());
    const created = await Promise.all(Array.from({ length: 200 }, (_, n) => create(tenant, n)));
    const runningIds = created.map((c) => Number(c.runningId)).sort((x, y) => x - y);
    expect(runningIds).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(created.map((c) => c.ticketId)).size).toBe(200);
  });

  it("counts every company from 1 on its own", async () => {
    const [x, y] = [await ctx.applyTenant(tenantFile()), await ctx.applyTenant(tenantFile())];
    const created = await Promise.all([create(x, 1), create(y, 1), create(x, 2), create(y, 2)]);
    expect(created.map((c) => Number(c.runningId)).sort()).toEqual([1, 1, 2, 2]);
  });

  describe("paging through 500 tickets while more are created", () => {
    let tenant: TenantResult;
    // 500 tickets in pages of 19 and 23: some 25 pages a scan, each one a chance for the
    // writers' new tickets to land between two reads, as many as 2,500 tickets gave in pages of
    // about a hundred, for a fifth of the creations.
    const INITIAL = 500;

    beforeAll(async () => {
      tenant = await ctx.applyTenant(tenantFile());
      await inParallel(INITIAL, 16, (n) => create(tenant, n));
    }, 180_000);

    /** Pages through the whole result while 8 writers create tickets concurrently. */
    async function scan(order: "asc" | "desc", limit: number) {
      let creating = true;
      let created = 0;
      const writer = Promise.all(
        Array.from({ length: 8 }, async () => {
          while (creating) {
            created += 1;
            await create(tenant, 100_000 + created);
          }
        }),
      );
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      try {
        do {
          const page = await ctx.tickets.listTickets({ companyId: tenant.companyId, order, limit, cursor });
          seen.push(...page.tickets.map((t) => Number(t.runningId)));
          cursor = page.nextCursor;
          pages += 1;
        } while (cursor !== undefined);
      } finally {
        creating = false;
        await writer;
      }
      return { seen, pages, created };
    }

    it("in ascending order: every ticket once, in running-id order, new ones at the end", async () => {
      const before = Number((await ctx.tickets.listTickets({ companyId: tenant.companyId, order: "desc", limit: 1 })).tickets[0]!.runningId);
      const { seen, created } = await scan("asc", 19);
      expect(created).toBeGreaterThan(0);
      expect(new Set(seen).size).toBe(seen.length);
      // Strictly increasing and without holes: nothing skipped, nothing repeated.
      expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
      expect(seen.length).toBeGreaterThanOrEqual(before);
    }, 120_000);

    it("in descending order: every ticket that existed when the scan began, once, newest first", async () => {
      const { seen, created } = await scan("desc", 23);
      expect(created).toBeGreaterThan(0);
      expect(new Set(seen).size).toBe(seen.length);
      const top = seen[0]!;
      expect(top).toBeGreaterThanOrEqual(INITIAL);
      expect(seen).toEqual(Array.from({ length: top }, (_, i) => top - i));
    }, 120_000);
  });
});
