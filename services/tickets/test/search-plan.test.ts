// Search must be answered from indexes: on 20,000 tickets of one company (four games; English,
// German, French and Japanese) with 100,000 messages and notes, beside 5,000 tickets of another
// company, each kind of search reads no table sequentially and touches a bounded number of
// buffers, and a search read by blocks of tickets gives the page the whole index step gives.
// The events are written before the search migrations run, so this also proves that the
// migrations make existing messages searchable and give them their ticket's running id. Set
// TEST_PRINT_PLANS=1 to print the plans.
import { CompiledQuery } from "kysely";
import { createDb, migrateToLatest, sql, type Kysely } from "@support/db";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations, type TicketsDatabase } from "../src/index.ts";
import { parseAgentListQuery } from "../src/tickets/agent-list.ts";
import { encodeCursor } from "../src/tickets/cursor.ts";
import {
  listAgentTickets, listAgentTicketsQuery, longestSecondWalk, newestRunningId, searchEventHits, searchWalkQuery, searchWindowQuery, searchWindows, searchWordsByBlocks, secondWalkLength,
} from "../src/tickets/ticket.repository.ts";

const COMPANY = "c0000000-0000-4000-8000-000000000001";
const OTHER = "c0000000-0000-4000-8000-000000000002";
const GAMES = ["a0000000-0000-4000-8000-000000000001", "a0000000-0000-4000-8000-000000000002", "a0000000-0000-4000-8000-000000000003", "a0000000-0000-4000-8000-000000000004"];
const AGENT_GAMES = GAMES.slice(0, 2);
const USER = "b0000000-0000-4000-8000-000000000003";
const SECRET = "plan-secret";
const ROWS = 20_000;
const MESSAGES_PER_TICKET = 5;
const NOW = new Date("2026-03-01T00:00:00.000Z");

/** Words of the English messages, German and French ones, Japanese sentences: message g, word i is picked by (g * 7 + i * 13) % length. */
const ENGLISH = ["account", "payment", "refund", "ship", "crash", "login", "password", "purchase", "gems", "level", "reward", "event", "guild",
  "server", "lag", "update", "missing", "item", "armor", "weapon", "quest", "bug", "stuck", "loading", "screen", "error", "charged", "twice",
  "friend", "chat", "banned", "restore", "progress", "device", "android", "iphone", "coins", "season", "pass", "battle"];
const GERMAN = ["Konto", "Zahlung", "Erstattung", "Schiff", "Absturz", "Anmeldung", "Passwort", "Kauf", "Edelsteine", "Stufe", "Belohnung",
  "Häuser", "Gilde", "Server", "Verzögerung", "Aktualisierung", "fehlt", "Gegenstand", "Rüstung", "Waffe", "Quest", "Fehler", "hängt"];
const FRENCH = ["compte", "paiement", "remboursement", "vaisseau", "plantage", "connexion", "achat", "gemmes", "niveau", "récompense",
  "guilde", "serveur", "mise", "jour", "objet", "armure", "arme", "quête", "bogue", "bloqué"];
const JAPANESE = ["アカウントにログインできません", "課金したのにジェムが届きません", "ゲームが起動しません", "データが消えました",
  "ギルドのイベントに参加できない", "アップデート後にクラッシュします", "パスワードを忘れました", "機種変更のデータ引き継ぎ"];

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
const words = (list: string[]) => sql`${list}::text[]`;

describe("search plans", () => {
  let infra: TestInfra;
  let db: Kysely<TicketsDatabase>;
  const figures: string[] = [];

  beforeAll(async () => {
    infra = await createTestInfra();
    db = createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 2 });
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "2026_11_30_00_00_00_add_ticket_search"));
    await migrateToLatest(db, "tickets", before);
    for (const [company, count] of [[COMPANY, ROWS], [OTHER, 5_000]] as const) {
      await sql`
        insert into tickets (company_id, running_id, game_id, game_environment_id, service_player_id, player_external_id, player_name, email,
          status, resolution_type, assignee_id, support_source, channels, language, platform, metadata, first_message, first_message_normalized,
          created_at, last_activity_at, closed_at)
        select ${company}::uuid, g, (${GAMES}::uuid[])[1 + g % 4], gen_random_uuid(), gen_random_uuid(), 'player-' || g,
          'Player ' || g, 'p' || g || '@mail' || (g % 50) || '.example',
          case when g % 2 = 0 then 'closed' else 'assigned' end, case when g % 2 = 0 then 'resolved' end,
          case when g % 10 < 7 then ('b0000000-0000-4000-8000-' || lpad((g % 25)::text, 12, '0'))::uuid end,
          'API', '{chat}'::text[], (array['en','en','en','en','en','en','de','de','fr','ja'])[1 + g % 10], 'ios', '{}'::jsonb,
          'message ' || g, 'message ' || g, t.created, t.created, case when g % 2 = 0 then t.created end
        from generate_series(1, ${count}::int) g
        cross join lateral (select ${NOW}::timestamptz - (${count}::int - g) * interval '1 minute' as created) t`.execute(db);
    }
    // Five events a ticket: player and agent messages in turn, every fifth a private note; the
    // text of twelve words of the ticket's language (a Japanese sentence for ja), some rare words.
    await sql`
      insert into ticket_events (ticket_id, company_id, type, data, actor, created_at)
      select t.id, t.company_id, case when n = 5 then 'PRIVATE_NOTE' when n % 2 = 1 then 'PLAYER_MESSAGE' else 'AGENT_MESSAGE' end,
        jsonb_build_object('message', m.text, 'language', t.language, 'attachments', '[]'::jsonb), '{"type":"system","id":null}'::jsonb,
        t.created_at + n * interval '1 second'
      from tickets t cross join generate_series(1, ${MESSAGES_PER_TICKET}::int) n
      cross join lateral (select case t.language
          when 'ja' then (${JAPANESE}::text[])[1 + (t.running_id * 7 + n) % ${JAPANESE.length}] || '。' || (${JAPANESE}::text[])[1 + (t.running_id + n * 3) % ${JAPANESE.length}]
          else (select string_agg(w[1 + ((t.running_id * 7 + n * 31 + i * 13) % array_length(w, 1))::int], ' ')
                from generate_series(1, 12) i
                cross join lateral (select case t.language when 'de' then ${words(GERMAN)} when 'fr' then ${words(FRENCH)} else ${words(ENGLISH)} end as w) l)
            || case when t.running_id % 1000 = 0 and n = 1 then ' zeppelin' else '' end
            || case when t.running_id % 97 = 0 and n = 2 then ' griffin' else '' end
        end as text) m`.execute(db);
    await migrateToLatest(db, "tickets", migrations);
    await sql`analyze tickets`.execute(db);
    // The running-id migration updated every event: vacuumed, as autovacuum would after it.
    await sql`vacuum analyze ticket_events`.execute(db);
  }, 300_000);

  afterAll(async () => {
    if (figures.length > 0) console.log(`search plans (${ROWS} tickets, ${ROWS * MESSAGES_PER_TICKET} events):\n${figures.join("\n")}`);
    await db?.destroy();
    await infra?.stop();
  });

  async function plan(compiled: { sql: string; parameters: readonly unknown[] }, name: string, executor: Kysely<TicketsDatabase> = db): Promise<{ scans: string[]; buffers: number; ms: number; rows: number }> {
    const explain = CompiledQuery.raw(`explain (analyze, buffers, format json) ${compiled.sql}`, [...compiled.parameters]);
    const { rows } = await executor.executeQuery<{ "QUERY PLAN": { Plan: PlanNode & { "Actual Rows": number }; "Execution Time": number }[] }>(explain);
    const root = rows[0]!["QUERY PLAN"][0]!;
    if (process.env.TEST_PRINT_PLANS) {
      const text = await executor.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(`explain (analyze, buffers, costs off, timing off) ${compiled.sql}`, [...compiled.parameters]));
      console.log(`--- ${name} (${root["Execution Time"].toFixed(2)} ms)\n${text.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
    const seqScans = nodes(root.Plan).filter((node) => node["Node Type"] === "Seq Scan").map((node) => node["Relation Name"] ?? "");
    const buffers = (root.Plan["Shared Hit Blocks"] ?? 0) + (root.Plan["Shared Read Blocks"] ?? 0);
    return { scans: seqScans, buffers, ms: root["Execution Time"], rows: root.Plan["Actual Rows"] };
  }

  it("made the events written before the migration searchable", async () => {
    const { rows } = await sql<{ indexed: number; all: number }>`
      select count(*) filter (where search_vector is not null)::int as indexed, count(*)::int as "all" from ticket_events`.execute(db);
    expect(rows[0]).toEqual({ indexed: (ROWS + 5_000) * MESSAGES_PER_TICKET, all: (ROWS + 5_000) * MESSAGES_PER_TICKET });
  });

  it("gave the events written before the migration their ticket's running id", async () => {
    const { rows } = await sql<{ differ: number }>`
      select count(*)::int as differ from ticket_events e join tickets t on t.id = e.ticket_id where e.ticket_running_id <> t.running_id`.execute(db);
    expect(rows[0]!.differ).toBe(0);
  });

  it("gives events written without their ticket's running id (as the previous release writes them) their ticket's", async () => {
    // A ticket and its first event in one statement, then an event of an existing ticket.
    const { rows: [created] } = await sql<{ id: string; running_id: string }>`
      with ticket as (
        insert into tickets (company_id, running_id, game_id, game_environment_id, status, channels, language, first_message, first_message_normalized, created_at)
        values (${OTHER}::uuid, 900001, ${GAMES[0]}::uuid, gen_random_uuid(), 'new', '{chat}', 'en', 'kestrel', 'kestrel', ${NOW}::timestamptz)
        returning id, running_id
      ), event as (
        insert into ticket_events (ticket_id, company_id, type, data, actor)
        select id, ${OTHER}::uuid, 'PLAYER_MESSAGE', '{"message":"kestrel"}'::jsonb, '{"type":"system","id":null}'::jsonb from ticket
      )
      select id, running_id from ticket`.execute(db);
    await sql`insert into ticket_events (ticket_id, company_id, type, data, actor)
      values (${created!.id}::uuid, ${OTHER}::uuid, 'AGENT_MESSAGE', '{"message":"kestrel"}'::jsonb, '{"type":"system","id":null}'::jsonb)`.execute(db);
    const { rows } = await sql<{ ticket_running_id: string | null }>`select ticket_running_id from ticket_events where ticket_id = ${created!.id}::uuid order by seq`.execute(db);
    expect(rows.map((row) => Number(row.ticket_running_id))).toEqual([900001, 900001]);
    await sql`delete from tickets where id = ${created!.id}::uuid`.execute(db);
  });

  it("reads the windows of a search by blocks in the list's order, from the cursor's block", () => {
    const cursor = (runningId: number) => ({ createdAt: NOW, runningId });
    expect(searchWindows({ order: "desc" }, 20_000)).toEqual([{ blocks: [4, 3] }, { blocks: [2, 1, 0] }]);
    expect(searchWindows({ order: "asc" }, 20_000)).toEqual([{ blocks: [0, 1] }, { blocks: [2, 3, 4] }]);
    expect(searchWindows({ order: "desc", cursor: cursor(9_000) }, 20_000)).toEqual([{ blocks: [2, 1] }, { blocks: [0] }]);
    expect(searchWindows({ order: "asc", cursor: cursor(9_000) }, 20_000)).toEqual([{ blocks: [2, 3] }, { blocks: [4] }]);
    // Past 2 + 4 + 8 + 16 blocks, every running id beyond them at once.
    expect(searchWindows({ order: "desc" }, 1_000_000).at(-1)).toEqual({ runningBelow: 215 * 4096 });
    expect(searchWindows({ order: "asc" }, 1_000_000).at(-1)).toEqual({ runningFrom: 30 * 4096 });
    expect(searchWindows({ order: "desc" }, 1_000_000).slice(0, 2)).toEqual([{ blocks: [244, 243] }, { blocks: [242, 241, 240, 239] }]);
  });

  // The page read by blocks equals the whole index step's (every match read, then ordered), for
  // words in 1% and 0.1% of the tickets, a Japanese pair, with a filter, both orders, the
  // agent's two games and all four, first and second pages.
  const blockCases: [string, Record<string, unknown>][] = [
    ["griffin", {}], ["zeppelin", {}], ["ログイン", {}], ["griffin", { order: "asc" }], ["griffin", { view: "open" }], ["Häuser", { limit: 20 }],
  ];
  it.each(blockCases)("reads %s %j by blocks as the index step does", async (q, extra) => {
    for (const gameIds of [AGENT_GAMES, GAMES]) {
      let cursor: string | undefined;
      for (let pageNo = 0; pageNo < 2; pageNo++) {
        const query = parseAgentListQuery({ limit: 50, q, ...extra, ...(cursor === undefined ? {} : { cursor }) }, { companyId: COMPANY, userId: USER, gameIds, cursorSecret: SECRET, now: NOW });
        const search = query.search!;
        const whole = await listAgentTicketsQuery(db, COMPANY, query).execute();
        const wordsPage = await searchWordsByBlocks(db, COMPANY, { ...query, search });
        const byBlocks = await listAgentTicketsQuery(db, COMPANY, query, wordsPage).execute();
        expect(byBlocks.map((row) => row.id), `${q} page ${pageNo}`).toEqual(whole.map((row) => row.id));
        // And as the service answers it (the walks first).
        const listed = await listAgentTickets(db, COMPANY, query);
        expect(listed.map(({ ticket }) => ticket.id), `${q} page ${pageNo}, listed`).toEqual(whole.map((row) => row.id));
        expect(whole.length, `${q} page ${pageNo}`).toBeGreaterThan(0);
        const last = whole[query.limit - 1];
        if (last === undefined) break;
        cursor = encodeCursor(SECRET, COMPANY, query.order, { createdAt: last.created_at, runningId: Number(last.running_id) });
      }
    }
  });

  // A named (prepared) statement is planned for its values five times, then Postgres may use one
  // generic plan for every word: for a search, a plan for no word in particular (in the bench at a
  // million tickets, a Japanese word 2-3 times slower). The statements whose plan depends on the
  // words stay unnamed, planned for each search's own words.
  it("plans the words' reads for each search's own words: they are never prepared statements", async () => {
    const single = createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 1 });
    try {
      for (let round = 0; round < 7; round++) {
        for (const q of ["griffin", "ログイン", "zeppelin"]) {
          const query = parseAgentListQuery({ limit: 50, q }, { companyId: COMPANY, userId: USER, gameIds: AGENT_GAMES, cursorSecret: SECRET, now: NOW });
          const page = await searchWordsByBlocks(single, COMPANY, { ...query, search: query.search! });
          expect(page.length, q).toBeGreaterThan(0);
          expect((await searchEventHits(single, page.slice(0, 10), query.search!.words)).length, q).toBeGreaterThan(0);
        }
      }
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(single);
      expect(rows.filter(({ statement }) => statement.includes("search_vector @@")).map(({ statement }) => statement.slice(0, 120))).toEqual([]);
      // The connection does name statements: the newest running id, read by every search.
      expect(rows.some(({ statement }) => statement.includes("max(running_id)"))).toBe(true);
    } finally {
      await single.destroy();
    }
  });

  // The blocks are a condition of the event index, not a filter on the events it returned: the
  // index then reads only the blocks' matches. A CJK phrase read in every configuration is the
  // words Postgres underestimates most.
  it.each([["griffin"], ["ログイン"], ["\"account server\""]])("reads the blocks of %s inside the event index", async (q) => {
    const query = parseAgentListQuery({ limit: 50, q }, { companyId: COMPANY, userId: USER, gameIds: AGENT_GAMES, cursorSecret: SECRET, now: NOW });
    const compiled = searchWindowQuery(db, COMPANY, { ...query, search: query.search! }, { blocks: [4, 3] }, 51).compile();
    const explain = CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]);
    const { rows } = await db.executeQuery<{ "QUERY PLAN": { Plan: PlanNode }[] }>(explain);
    const scans = nodes(rows[0]!["QUERY PLAN"][0]!.Plan).filter((node) => node["Index Name"] === "ticket_events_search_block_idx");
    expect(scans.length, q).toBe(1);
    expect(scans[0]!["Index Cond"], q).toContain("&&");
  });

  // Bounds about 1.5 times the measured buffers. Words in more than a tenth of the tickets are
  // answered by the walk through the newest 500 (SEARCH_WALK); those in 5-10% by a second,
  // longer walk; rarer ones pay the first walk, then the event index by blocks of tickets,
  // newest first, in proportion to the matches of the blocks read: see docs/agent-api.md.
  const cases: [string, string, number][] = [
    ["a rare word (20 tickets)", "zeppelin", 6_500],
    ["a word in 1% of the tickets", "griffin", 6_500],
    ["a common English word", "refund", 1_000],
    ["two English words", "refunds charged", 4_200],
    ["a quoted phrase", '"account server"', 1_500],
    ["a German word by its stem", "Haus", 3_000],
    ["a Japanese substring", "ログイン", 20_000],
    ["an email fragment", "p1233@mail", 6_500],
    ["the running number", "#12345", 100],
  ];

  it.each(cases)("answers %s from indexes with few buffers", async (name, q, maxBuffers) => {
    const query = parseAgentListQuery({ limit: 50, q }, { companyId: COMPANY, userId: USER, gameIds: AGENT_GAMES, cursorSecret: SECRET, now: NOW });
    const search = query.search!;
    // As listAgentTickets runs it: the walk through the newest tickets first (when there are
    // words), the indexes when that did not fill the page.
    let path = "index";
    let total = { scans: [] as string[], buffers: 0, ms: 0, rows: 0 };
    if (search.words !== "") {
      const walk = await plan(searchWalkQuery(db, COMPANY, { ...query, search }).compile(), `${name}, walk`);
      total = walk;
      path = "walk";
      const length = walk.rows <= 50 ? secondWalkLength(walk.rows, 50, longestSecondWalk(query.sort)) : undefined;
      if (length !== undefined) {
        const further = await plan(searchWalkQuery(db, COMPANY, { ...query, search }, length).compile(), `${name}, walk of ${length}`);
        total = { scans: [...total.scans, ...further.scans], buffers: total.buffers + further.buffers, ms: total.ms + further.ms, rows: further.rows };
        path = `walk, walk of ${length}`;
        if (further.rows > 50) {
          // The longer walk's page is the page the indexes give.
          const walked = await searchWalkQuery(db, COMPANY, { ...query, search }, length).execute();
          const indexed = await listAgentTicketsQuery(db, COMPANY, query).execute();
          expect(walked.map((row) => row.id), name).toEqual(indexed.map((row) => row.id));
        }
      }
    }
    if (total.rows <= 50) {
      // As listAgentTickets runs it: without parallel workers; the words by blocks of tickets
      // (this list is sorted by creation), then the page of every condition.
      const index = await db.transaction().execute(async (trx) => {
        await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
        let read = { scans: [] as string[], buffers: 0, ms: 0, rows: 0 };
        let wordsPage: string[] | undefined;
        if (search.words !== "") {
          wordsPage = [];
          for (const window of searchWindows(query, (await newestRunningId(trx, COMPANY))!)) {
            const windowQuery = searchWindowQuery(trx, COMPANY, { ...query, search }, window, 51 - wordsPage.length);
            const step = await plan(windowQuery.compile(), `${name}, ${JSON.stringify(window)}`, trx);
            read = { scans: [...read.scans, ...step.scans], buffers: read.buffers + step.buffers, ms: read.ms + step.ms, rows: 0 };
            wordsPage.push(...(await windowQuery.execute()).map((row) => row.id));
            if (wordsPage.length > 50) break;
          }
        }
        const page = await plan(listAgentTicketsQuery(trx, COMPANY, query, wordsPage).compile(), `${name}, index`, trx);
        return { scans: [...read.scans, ...page.scans], buffers: read.buffers + page.buffers, ms: read.ms + page.ms, rows: page.rows };
      });
      total = { scans: [...total.scans, ...index.scans], buffers: total.buffers + index.buffers, ms: total.ms + index.ms, rows: index.rows };
      path = path === "index" ? "index" : `${path}, then index`;
    }
    const { scans, buffers, ms, rows } = total;
    figures.push(`${name.padEnd(28)} q=${q.padEnd(18)} ${path.padEnd(26)} rows ${String(rows).padStart(3)}  buffers ${String(buffers).padStart(6)}  ${ms.toFixed(2)} ms`);
    expect(rows, name).toBeGreaterThan(0);
    expect(scans, name).toEqual([]);
    expect(buffers, name).toBeLessThan(maxBuffers);
  });
});
