// support_deletions_pending and support_deletions_overdue of the players service, counted at
// scrape time from the schedules and the scheduled erasures in its database.
import { randomUUID } from "node:crypto";
import { sql } from "@support/db";
import { parseMetricsText } from "@support/metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlayers, type PlayersTestContext } from "./context.ts";

describe("deletion metrics", () => {
  let ctx: PlayersTestContext;

  beforeAll(async () => {
    ctx = await startPlayers();
  });
  afterAll(() => ctx?.stop());

  const scrape = async () => {
    const scraped = parseMetricsText(await ctx.server.registry.metrics());
    return { pending: scraped.value("support_deletions_pending"), overdue: scraped.value("support_deletions_overdue") };
  };

  it("counts scheduled deletions not done, and those more than an hour past due", async () => {
    expect(await scrape()).toEqual({ pending: 0, overdue: 0 });
    const companyId = randomUUID();
    const gameId = randomUUID();
    const player = async () => {
      const { rows } = await sql<{ id: string }>`insert into players (company_id, game_id, external_id) values (${companyId}, ${gameId}, ${randomUUID()}) returning id`.execute(ctx.db);
      return rows[0]!.id;
    };
    const schedule = async (dueIn: string) =>
      sql`insert into deletion_schedules (player_id, company_id, game_id, requested_by_type, due_at)
          values (${await player()}, ${companyId}, ${gameId}, 'operator', now() + ${dueIn}::interval)`.execute(ctx.db);
    const erasure = async (trigger: string, startedAgo: string, completed: boolean) =>
      sql`insert into erasures (company_id, player_id, game_id, trigger, requested_by_type, requested_at, started_at, completed_at)
          values (${companyId}, ${randomUUID()}, ${gameId}, ${trigger}, 'operator', now() - interval '2 days', now() - ${startedAgo}::interval,
                  ${completed ? sql`now()` : sql`null`})`.execute(ctx.db);
    await schedule("1 day"); // waiting for its due time
    await schedule("-10 minutes"); // due, not yet an hour late
    await schedule("-2 hours"); // overdue
    await erasure("scheduled", "5 minutes", false); // running
    await erasure("scheduled", "3 hours", false); // running for hours: overdue
    await erasure("scheduled", "3 hours", true); // done
    await erasure("immediate", "3 hours", false); // not a scheduled deletion
    expect(await scrape()).toEqual({ pending: 5, overdue: 2 });
    await sql`update erasures set completed_at = now() where completed_at is null`.execute(ctx.db);
    await sql`delete from deletion_schedules where due_at < now()`.execute(ctx.db);
    expect(await scrape()).toEqual({ pending: 1, overdue: 0 });
  });
});
