// The support application's lists and view counts must be answered from indexes: on 20,000
// tickets of one company (four games, 25 agents, every status) beside 5,000 of another, a
// view's first page and a deep page, and the counts of every view for one agent, read no
// table sequentially and touch a bounded number of buffers. Set TEST_PRINT_PLANS=1 to print them.
import { CompiledQuery } from "kysely";
import { createDb, migrateToLatest, sql, type Kysely } from "@support/db";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations, type TicketsDatabase } from "../src/index.ts";
import { AGENT_VIEWS, parseAgentListQuery, viewConditions, type RawAgentListQuery } from "../src/tickets/agent-list.ts";
import { encodeCursor } from "../src/tickets/cursor.ts";
import { countAgentViewsQuery, listAgentTicketsQuery } from "../src/tickets/ticket.repository.ts";

const COMPANY = "c0000000-0000-4000-8000-000000000001";
const OTHER = "c0000000-0000-4000-8000-000000000002";
const GAMES = ["a0000000-0000-4000-8000-000000000001", "a0000000-0000-4000-8000-000000000002", "a0000000-0000-4000-8000-000000000003", "a0000000-0000-4000-8000-000000000004"];
/** The agent whose lists are planned: two of the four games. */
const AGENT_GAMES = GAMES.slice(0, 2);
const agent = (n: number) => `b0000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const USER = agent(3);
const SECRET = "plan-secret";
const ROWS = 20_000;
/** The seeded tickets' clock: one a minute up to this instant. */
const NOW = new Date("2026-03-01T00:00:00.000Z");

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe("agent list and view count plans", () => {
  let infra: TestInfra;
  let db: Kysely<TicketsDatabase>;

  beforeAll(async () => {
    infra = await createTestInfra();
    db = createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 2 });
    await migrateToLatest(db, "tickets", migrations);
    // 55% closed (spread over the last two weeks of the series), the rest open; 70% of the
    // non-new tickets assigned to one of 25 agents.
    for (const [company, count] of [[COMPANY, ROWS], [OTHER, 5_000]] as const) {
      await sql`
        insert into tickets (company_id, running_id, game_id, game_environment_id, service_player_id, player_external_id, player_name, email,
          status, resolution_type, waiting_since, assignee_id, support_source, channels, language, platform, metadata, tags, fields,
          first_message, first_message_normalized, created_at, last_activity_at, closed_at)
        select ${company}::uuid, g, (${GAMES}::uuid[])[1 + g % 4], gen_random_uuid(), gen_random_uuid(), 'player-' || (g % 3000),
          'Player ' || (g % 3000), 'p' || (g % 3000) || '@example.com',
          s.status, case when s.status = 'closed' then 'resolved' end, case when s.status = 'waiting' then t.created end,
          case when s.status <> 'new' and g % 10 < 7 then ('b0000000-0000-4000-8000-' || lpad((g % 25)::text, 12, '0'))::uuid end,
          'API', case when g % 2 = 0 then '{chat}'::text[] else '{email}'::text[] end, case when g % 5 = 0 then 'de' else 'en' end, 'ios',
          jsonb_build_object('platform', 'ios', 'playerTier', 1 + g % 3), '{}'::text[], '{}'::jsonb,
          'message ' || g, 'message ' || g, t.created, t.created + interval '3 hours',
          case when s.status = 'closed' then t.created + interval '3 hours' end
        from generate_series(1, ${count}::int) g
        cross join lateral (select ${NOW}::timestamptz - (${count}::int - g) * interval '1 minute' as created) t
        cross join lateral (select (array['closed','closed','closed','closed','closed','closed','waiting','new','assigned','on_hold','unassigned'])[1 + g % 11] as status) s`.execute(db);
    }
    // As autovacuum leaves a table after a bulk insert: statistics and the visibility map (index-only counts).
    await sql`vacuum analyze tickets`.execute(db);
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    await infra?.stop();
  });

  async function plan(compiled: { sql: string; parameters: readonly unknown[] }, name: string): Promise<{ scans: string[]; buffers: number; ms: number }> {
    const explain = CompiledQuery.raw(`explain (analyze, buffers, format json) ${compiled.sql}`, [...compiled.parameters]);
    const { rows } = await db.executeQuery<{ "QUERY PLAN": { Plan: PlanNode; "Execution Time": number }[] }>(explain);
    const root = rows[0]!["QUERY PLAN"][0]!;
    if (process.env.TEST_PRINT_PLANS) {
      const text = await db.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`explain (analyze, buffers, costs off, timing off) ${compiled.sql}`, [...compiled.parameters]));
      console.log(`--- ${name} (${root["Execution Time"].toFixed(2)} ms)\n${text.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
    const seqScans = nodes(root.Plan).filter((node) => node["Node Type"] === "Seq Scan").map((node) => node["Relation Name"] ?? "");
    return { scans: seqScans, buffers: (root.Plan["Shared Hit Blocks"] ?? 0) + (root.Plan["Shared Read Blocks"] ?? 0), ms: root["Execution Time"] };
  }

  const deepCursor = (sort: "createdAt" | "lastActivityAt") =>
    encodeCursor(SECRET, COMPANY, "desc", { createdAt: new Date(NOW.getTime() - 10_000 * 60_000 + (sort === "lastActivityAt" ? 3 * 3_600_000 : 0)), runningId: 10_000 }, sort);

  const cases: [string, RawAgentListQuery][] = [
    ["mine, first page", { view: "mine" }],
    ["mine by last activity, deep page", { view: "mine", sort: "lastActivityAt", cursor: deepCursor("lastActivityAt") }],
    ["unassigned", { view: "unassigned" }],
    ["all open by last activity", { view: "open", sort: "lastActivityAt" }],
    ["waiting, deep page", { view: "waiting", cursor: deepCursor("createdAt") }],
    ["closed in the last 7 days", { view: "closed_7d" }],
    ["no view, assignee nobody, German, tier 2", { assignee: "nobody", language: "de", tier: "2" }],
  ];

  it.each(cases)("answers %s from indexes with few buffers", async (name, raw) => {
    const query = parseAgentListQuery({ limit: 50, ...raw }, { companyId: COMPANY, userId: USER, gameIds: AGENT_GAMES, cursorSecret: SECRET, now: NOW });
    const { scans, buffers } = await plan(listAgentTicketsQuery(db, COMPANY, query).compile(), name);
    expect(scans, name).toEqual([]);
    expect(buffers, name).toBeLessThan(1500);
  });

  it("answers an agent of one game sorted by last activity from the activity index", async () => {
    const query = parseAgentListQuery({ limit: 50, sort: "lastActivityAt" }, { companyId: COMPANY, userId: USER, gameIds: [GAMES[0]!], cursorSecret: SECRET, now: NOW });
    const { scans, buffers } = await plan(listAgentTicketsQuery(db, COMPANY, query).compile(), "one game, by last activity");
    expect(scans).toEqual([]);
    expect(buffers).toBeLessThan(100);
  });

  it("counts every view for an agent in one query from indexes", async () => {
    const views = AGENT_VIEWS.map((view) => ({ name: view, conditions: viewConditions(view, USER, NOW) }));
    const { scans, buffers } = await plan(countAgentViewsQuery(db, COMPANY, AGENT_GAMES, views).compile(db), "view counts");
    expect(scans).toEqual([]);
    expect(buffers).toBeLessThan(1500);
  });
});
