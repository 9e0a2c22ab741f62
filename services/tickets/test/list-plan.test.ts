// The list query's cost must not grow with a company's ticket count: on a table of
// 150,000 tickets (120,000 in the company listed) every page (first, deep, filtered) is answered from an index, without a
// sequential scan and with a bounded number of buffers. Set TEST_PRINT_PLANS=1 to print them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompiledQuery } from "kysely";
import { createDb, migrateToLatest, sql, type Kysely } from "@support/db";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { migrations, type TicketsDatabase } from "../src/index.ts";
import { parseListQuery, type RawListQuery } from "../src/tickets/list-query.ts";
import { encodeCursor } from "../src/tickets/cursor.ts";
import { listTicketsQuery } from "../src/tickets/ticket.repository.ts";

const COMPANY = "c0000000-0000-4000-8000-000000000001";
const OTHER = "c0000000-0000-4000-8000-000000000002";
const GAME_A = "a0000000-0000-4000-8000-000000000001";
const GAME_B = "a0000000-0000-4000-8000-000000000002";
const SECRET = "plan-secret";
const ROWS = 120_000;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe("list query plan on a large table", () => {
  let infra: TestInfra;
  let db: Kysely<TicketsDatabase>;

  beforeAll(async () => {
    infra = await createTestInfra();
    db = createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 2 });
    await migrateToLatest(db, "tickets", migrations);
    // Postgres fills 150,000 rows into a dozen indexes (four of them GIN) many times faster by
    // building each index once over the loaded table than by inserting into it row by row: the
    // plain indexes are dropped for the load and made again from their own definitions, so the
    // table the plans run on is the one the migrations made.
    const { rows: indexes } = await sql<{ name: string; definition: string }>`
      select i.indexname as name, i.indexdef as definition from pg_indexes i
      where i.schemaname = 'tickets' and i.tablename = 'tickets'
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.connamespace = 'tickets'::regnamespace)`.execute(db);
    for (const index of indexes) await sql`drop index ${sql.id("tickets", index.name)}`.execute(db);
    // 120,000 tickets of one company (one per minute, 60% closed, a few tagged) and 30,000 of another.
    for (const [company, count] of [[COMPANY, ROWS], [OTHER, 30_000]] as const) {
      await sql`
        insert into tickets (company_id, running_id, game_id, game_environment_id, service_player_id, player_external_id, email,
          status, resolution_type, waiting_since, support_source, channels, language, platform, metadata, tags, fields,
          first_message, first_message_normalized, created_at, last_activity_at, closed_at)
        select ${company}::uuid, g, case when g % 3 = 0 then ${GAME_B}::uuid else ${GAME_A}::uuid end, gen_random_uuid(), gen_random_uuid(),
          'player-' || (g % 20000), 'p' || (g % 20000) || '@example.com',
          s.status, case when s.status = 'closed' then 'resolved' end, case when s.status = 'waiting' then now() end,
          'API', '{email}', 'en', 'ios', '{"platform":"ios"}',
          case when g % 12000 = 0 then '{legendary}'::text[] when g % 50 = 0 then '{vip,bug}'::text[] when g % 7 = 0 then '{bug}'::text[] else '{}'::text[] end,
          case when g % 12000 = 0 then jsonb_build_object('level', 1000) else jsonb_build_object('level', g % 100) end,
          'message ' || g, 'message ' || g, timestamptz '2025-01-01' + g * interval '1 minute', timestamptz '2025-01-01' + g * interval '1 minute',
          case when s.status = 'closed' then timestamptz '2025-01-01' + g * interval '1 minute' end
        from generate_series(1, ${count}::int) g
        cross join lateral (select (array['closed','closed','closed','closed','closed','closed','waiting','new','assigned','on_hold'])[1 + g % 10] as status) s`.execute(db);
    }
    await db.connection().execute(async (connection) => {
      await sql`set maintenance_work_mem = '256MB'`.execute(connection);
      for (const index of indexes) await sql.raw(index.definition).execute(connection);
    });
    await sql`analyze tickets`.execute(db);
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    await infra?.stop();
  });

  const cursorAt = (order: "asc" | "desc", runningId: number) =>
    encodeCursor(SECRET, COMPANY, order, { createdAt: new Date(Date.parse("2025-01-01T00:00:00Z") + runningId * 60_000), runningId });

  const cases: [string, RawListQuery][] = [
    ["first page, no filter", {}],
    ["deep page, desc", { order: "desc", cursor: cursorAt("desc", 60_000) }],
    ["game, deep page", { gameId: GAME_B, cursor: cursorAt("asc", 90_000) }],
    ["external player id", { playerId: "player-42" }],
    ["email", { email: "P42@example.com" }],
    ["one status", { status: '["waiting"]', cursor: cursorAt("asc", 50_000) }],
    ["two statuses", { status: '["new","waiting"]', order: "desc" }],
    ["rare tag (2%)", { tags: '["vip"]' }],
    ["field value (1%)", { fields: '{"level":42}' }],
    ["very rare tag (10 tickets)", { tags: '["legendary"]' }],
    ["very rare field value (10 tickets)", { fields: '{"level":1000}', order: "desc" }],
    ["creation window", { createdAfter: "2025-02-01", createdBefore: "2025-02-03", cursor: cursorAt("asc", 46_200) }],
    ["ticket id", { ticketId: "d0000000-0000-4000-8000-000000000000" }],
  ];

  it.each(cases)("answers %s from an index with few buffers", async (name, raw) => {
    const query = parseListQuery({ limit: 100, ...raw }, { companyId: COMPANY, cursorSecret: SECRET });
    const compiled = listTicketsQuery(db, COMPANY, query).compile();
    const explain = CompiledQuery.raw(`explain (analyze, buffers, format json) ${compiled.sql}`, [...compiled.parameters]);
    const { rows } = await db.executeQuery<{ "QUERY PLAN": { Plan: PlanNode }[] }>(explain);
    const plan = rows[0]!["QUERY PLAN"][0]!.Plan;
    const all = nodes(plan);
    if (process.env.TEST_PRINT_PLANS) {
      const text = await db.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`explain (analyze, buffers, costs off, timing off) ${compiled.sql}`, [...compiled.parameters]));
      console.log(`--- ${name}\n${text.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
    expect(all.filter((node) => node["Node Type"] === "Seq Scan").map((node) => node["Relation Name"])).toEqual([]);
    const buffers = (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0);
    // A page of 100 rows touches a few hundred blocks at most (the 1% field filter, the worst here, ~480), however large the table.
    expect(buffers, name).toBeLessThan(600);
  });
});
