// `pnpm bench workspace`: the support application's reads at the size of issue 24, through the
// gateway with agents' session cookies. One company with four games holds BENCH_WORKSPACE_TICKETS
// tickets (default 1,000,000) and BENCH_WORKSPACE_MESSAGES messages (default 5,000,000),
// bulk-loaded straight into Postgres (workspace-seed.ts, each stage timed); a check then makes
// sure that tickets created through the API and seeded ones look alike to the agent API. Measured
// at a fixed arrival rate (open loop), for an admin (every game) and an agent of two games:
// search (frequent, mid-frequency and rare words, Japanese, German, `#<running number>`), the view
// counts, each built-in view's first page sorted by creation and by last activity, and the ticket
// view over many tickets. Targets (p95): search <= 100 ms, counts and first pages <= 50 ms, ticket
// view <= 50 ms. EXPLAIN (ANALYZE, BUFFERS) of the service's own SQL for the searches and the
// pages sorted by last activity are kept in the results.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createDb } from "../../libs/db/src/index.ts";
import type { TicketsDatabase } from "../../services/tickets/src/index.ts";
import { AGENT_VIEWS, parseAgentListQuery, viewConditions, type RawAgentListQuery } from "../../services/tickets/src/tickets/agent-list.ts";
import { normalizeMessage } from "../../services/tickets/src/tickets/duplicate.ts";
import {
  countAgentViewsQuery, listAgentTicketsQuery, longestSecondWalk, searchWalkQuery, searchWindowQuery, searchWindows, secondWalkLength,
} from "../../services/tickets/src/tickets/ticket.repository.ts";
import { subjectOf } from "../../services/tickets/src/reads/ticket-read.ts";
import type { Row, SuiteResult } from "./measure.ts";
import { openLoop, type OpenLoopResult } from "./open-loop.ts";
import { isCleaningUp, progress, runDirectory, startStack, type Stack } from "./stack.ts";
import type { Target } from "./targets.ts";
import { seedWorkspace, TEXT, type SeedStage } from "./workspace-seed.ts";

const here = import.meta.dirname;
const TICKETS = Number(process.env.BENCH_WORKSPACE_TICKETS ?? 1_000_000);
const MESSAGES = Number(process.env.BENCH_WORKSPACE_MESSAGES ?? TICKETS * 5);
/** Seconds measured per case, after WARMUP_SECONDS at the same rate. */
const SECONDS = Number(process.env.BENCH_WORKSPACE_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
/** Requests per second of each case: a few agents' consoles at once, far below what two cores serve. */
const RATE = Number(process.env.BENCH_WORKSPACE_RATE ?? 10);
const PAGE = 50;
const CURSOR_SECRET = "bench-cursor-secret";
const PASSWORD = "a bench password, long enough 2026";
const SEARCH_P95_MS = 100;
const LIST_P95_MS = 50;
const VIEW_P95_MS = 50;

const GAMES = ["galaxy", "farm", "racer", "dungeon"] as const;
/** Agents and the games they work on; the measured agent is the first. */
const AGENT_GAMES: string[][] = [
  ...Array.from({ length: 8 }, () => ["galaxy", "racer"]),
  ...Array.from({ length: 8 }, () => ["galaxy", "farm"]),
  ...Array.from({ length: 4 }, () => ["farm"]),
  ...Array.from({ length: 4 }, () => ["dungeon", "racer"]),
];
const ADMINS = 2;

interface Case {
  name: string;
  kind: "search" | "counts" | "page" | "ticket view";
  user: "admin" | "agent";
  paths: string[];
}

interface CaseResult extends Case {
  openLoop: OpenLoopResult;
}

interface SignedIn {
  userId: string;
  cookie: string;
  csrfToken: string;
  gameIds: string[];
}

const label = (n: number) => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

async function signIn(stack: Stack, email: string): Promise<{ cookie: string; csrfToken: string }> {
  const origin = new URL(stack.gateway).origin;
  const answer = await fetch(`${stack.gateway}/agent-api/sign-in`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
  const cookie = /^(support_session=[^;]+)/.exec(answer.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`sign-in of ${email} answered ${answer.status}`);
  const me = (await (await fetch(`${stack.gateway}/agent-api/me`, { headers: { cookie } })).json()) as { csrfToken: string };
  return { cookie, csrfToken: me.csrfToken };
}

async function getJson<T>(stack: Stack, url: string, cookie: string): Promise<T> {
  const answer = await fetch(`${stack.gateway}${url}`, { headers: { cookie } });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`GET ${url}: ${answer.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

const FREE_FORM = new Set(["fields", "metadata"]);

/**
 * Where two answers of the agent API differ in shape: a property one has and the other lacks, or
 * a different JSON type. Null matches anything (an unassigned ticket's assignee); arrays compare
 * each element with the other's element of the same type (conversation entries, snippet parts).
 */
export function shapeDifferences(a: unknown, b: unknown, at = ""): string[] {
  if (a === null || b === null || a === undefined || b === undefined) return [];
  const kind = (x: unknown) => (Array.isArray(x) ? "array" : typeof x);
  if (kind(a) !== kind(b)) return [`${at || "/"}: ${kind(a)} vs ${kind(b)}`];
  if (Array.isArray(a) && Array.isArray(b)) {
    const typeOf = (x: unknown) => {
      const o = x as { event?: { type?: string }; type?: string; highlight?: boolean } | null;
      return String(o?.event?.type ?? o?.type ?? o?.highlight ?? "");
    };
    return a.flatMap((x, i) => {
      const y = b.find((other) => typeOf(other) === typeOf(x));
      return y === undefined ? [] : shapeDifferences(x, y, `${at}/${i}`);
    });
  }
  if (typeof a === "object" && typeof b === "object") {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    // A ticket's custom fields and metadata hold whichever keys were set: maps, not records.
    if (FREE_FORM.has(at.split("/").at(-1)!)) return [];
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    return [...keys].flatMap((key) => {
      if (!(key in left)) return [`${at}/${key}: only in the second`];
      if (!(key in right)) return [`${at}/${key}: only in the first`];
      return shapeDifferences(left[key], right[key], `${at}/${key}`);
    });
  }
  return [];
}

interface ListItem {
  ticket: { id: string; runningId: number; status: string };
  subject: string;
  unread: boolean;
  match?: { field: string };
}

interface TicketView {
  ticket: { id: string };
  conversation: { event: { type: string }; author: { type: string } }[];
  player: { record: unknown };
}

/**
 * Tickets created through the API (POST /tickets, then an agent's assignment, reply and note)
 * and seeded tickets of the same status must look alike to the agent API: the same list item and
 * ticket view shapes, a subject from the first message, a player record, found by a word of their
 * message; the seeded rows' derived columns equal to what the service computes. Throws otherwise.
 */
async function checkAlike(stack: Stack, client: pg.Client, apiKey: string, gameId: string, admin: SignedIn): Promise<Record<string, unknown>> {
  const origin = new URL(stack.gateway).origin;
  const created: { ticketId: string; runningId: number }[] = [];
  for (const [i, language] of (["en", "de", "ja"] as const).entries()) {
    const message = `${TEXT[language].player[i]} ${TEXT[language].item[0]}${TEXT[language].items[i]}${TEXT[language].item[1]}`;
    const answer = await fetch(`${stack.gateway}/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ gameId, message, language, channels: ["email"], platform: "android", metadata: { player: { id: `api-player-${i}`, name: `API Player ${i}`, email: `api-player-${i}@example.com`, tier: 2 } } }),
    });
    if (!answer.ok) throw new Error(`POST /tickets answered ${answer.status}: ${await answer.text()}`);
    const ticket = (await answer.json()) as { ticketId: string; runningId: number };
    const actions = await fetch(`${stack.gateway}/agent-api/tickets/${ticket.ticketId}/actions`, {
      method: "POST",
      headers: { cookie: admin.cookie, origin, "x-csrf-token": admin.csrfToken, "content-type": "application/json" },
      body: JSON.stringify({ actions: [
        { type: "assignTicket", assigneeId: admin.userId },
        { type: "sendMessage", message: TEXT[language].agent[0] },
        { type: "addPrivateNote", message: "Checked the payment provider, the second charge is real." },
      ] }),
    });
    if (actions.status !== 200) throw new Error(`the actions answered ${actions.status}: ${await actions.text()}`);
    created.push(ticket);
  }
  const { rows: [apiRow] } = await client.query<{ status: string; language: string }>("select status, language from tickets where id = $1", [created[0]!.ticketId]);
  // A seeded ticket of the same status, language and game, with a reply and a note.
  const { rows: [seeded] } = await client.query<{ id: string; running_id: string }>(
    `select t.id, t.running_id from tickets t
     where t.running_id <= $4 and t.game_id = $1 and t.status = $2 and t.language = $3 and t.player_external_id is not null
       and exists (select 1 from ticket_events e where e.ticket_id = t.id and e.type = 'AGENT_MESSAGE')
       and exists (select 1 from ticket_events e where e.ticket_id = t.id and e.type = 'PRIVATE_NOTE')
     order by t.running_id desc limit 1`,
    [gameId, apiRow!.status, apiRow!.language, TICKETS],
  );
  if (!seeded) throw new Error(`no seeded ${apiRow!.status} ${apiRow!.language} ticket with a reply and a note to compare with`);
  const problems: string[] = [];
  const item = async (runningId: number | string) => {
    const page = await getJson<{ tickets: ListItem[] }>(stack, `/agent-api/tickets?q=%23${runningId}`, admin.cookie);
    if (page.tickets.length !== 1) throw new Error(`q=#${runningId} listed ${page.tickets.length} tickets`);
    return page.tickets[0]!;
  };
  const apiItem = await item(created[0]!.runningId);
  const seededItem = await item(seeded.running_id);
  problems.push(...shapeDifferences(apiItem, seededItem).map((d) => `list item ${d}`));
  const apiView = await getJson<TicketView>(stack, `/agent-api/tickets/${created[0]!.ticketId}`, admin.cookie);
  const seededView = await getJson<TicketView>(stack, `/agent-api/tickets/${seeded.id}`, admin.cookie);
  // The seeded replies were never mailed (the email service's schema is not seeded): the delivery
  // of the API ticket's reply (it is an email ticket) is the one entry the seeded view lacks.
  const mailed = /^\/conversation\/\d+\/emailDelivery: only in the first$/;
  problems.push(...shapeDifferences(apiView, seededView).filter((d) => !mailed.test(d)).map((d) => `ticket view ${d}`));
  const types = (view: TicketView) => [...new Set(view.conversation.map((entry) => `${entry.event.type}:${entry.author.type}`))].sort().join(",");
  if (types(apiView) !== types(seededView)) problems.push(`conversation kinds: API ${types(apiView)}, seeded ${types(seededView)}`);
  if (seededView.player.record === null) problems.push("the seeded ticket's player has no record");
  const { rows: [first] } = await client.query<{ first_message: string }>("select first_message from tickets where id = $1", [seeded.id]);
  if (seededItem.subject !== subjectOf(first!.first_message) || seededItem.subject === "") problems.push(`seeded subject ${JSON.stringify(seededItem.subject)}`);

  // The derived columns of a sample of every language, as the service computes them.
  const { rows: sample } = await client.query<{ first_message: string; first_message_normalized: string; language: string; config: string; event_config: string; other_running: number; message: string; last_activity_at: Date; last_event: Date; last_player_message_at: Date | null; last_player: Date | null }>(
    `select t.first_message, t.first_message_normalized, t.language, ticket_search_config(t.language)::text as config,
       (select e.search_config::text from ticket_events e where e.ticket_id = t.id order by e.seq limit 1) as event_config,
       (select count(*)::int from ticket_events e where e.ticket_id = t.id and e.ticket_running_id is distinct from t.running_id) as other_running,
       (select e.data->>'message' from ticket_events e where e.ticket_id = t.id and e.type = 'PLAYER_MESSAGE' order by e.seq limit 1) as message,
       t.last_activity_at, (select max(e.created_at) from ticket_events e where e.ticket_id = t.id) as last_event,
       t.last_player_message_at, (select max(e.created_at) from ticket_events e where e.ticket_id = t.id and e.type = 'PLAYER_MESSAGE') as last_player
     from tickets t where t.running_id % 997 = 1 and t.running_id <= $1`,
    [TICKETS],
  );
  for (const row of sample) {
    if (row.first_message_normalized !== normalizeMessage(row.first_message)) problems.push(`normalised first message of ${JSON.stringify(row.first_message)}`);
    if (row.message !== row.first_message) problems.push(`first message differs from the first event: ${JSON.stringify(row.first_message)}`);
    if (row.config !== row.event_config) problems.push(`search config ${row.event_config} for a ${row.language} ticket`);
    if (row.other_running !== 0) problems.push(`${row.other_running} events without their ticket's running id`);
    if (row.last_activity_at.getTime() !== row.last_event.getTime()) problems.push(`last activity ${row.last_activity_at.toISOString()} vs last event ${row.last_event.toISOString()}`);
    if (row.last_player_message_at?.getTime() !== row.last_player?.getTime()) problems.push("last player message time");
  }

  // The API tickets' events carry their ticket's running id as the seeded ones do.
  const { rows: [apiEvents] } = await client.query<{ events: number; other_running: number }>(
    `select count(*)::int as events, count(*) filter (where e.ticket_running_id is distinct from t.running_id)::int as other_running
     from tickets t join ticket_events e on e.ticket_id = t.id where t.id = any($1::uuid[])`,
    [created.map((ticket) => ticket.ticketId)],
  );
  if (apiEvents!.events === 0 || apiEvents!.other_running !== 0) problems.push(`API tickets: ${apiEvents!.other_running} of ${apiEvents!.events} events without their ticket's running id`);

  // Found by a word of its own message, with a snippet of that message.
  const found = await getJson<{ tickets: ListItem[] }>(stack, `/agent-api/tickets?q=${encodeURIComponent(TEXT.de.items[1]!)}&limit=${PAGE}`, admin.cookie);
  if (found.tickets.length === 0 || found.tickets.some((t) => t.match?.field !== "message")) problems.push(`q=${TEXT.de.items[1]} found ${found.tickets.length} tickets, not all by a message`);
  if (!found.tickets.some((t) => t.ticket.id === created[1]!.ticketId)) problems.push("the German API ticket is not the first found by its item");
  if (!found.tickets.some((t) => t.ticket.id !== created[1]!.ticketId)) problems.push("no seeded ticket found by a German item");
  if (problems.length > 0) throw new Error(`seeded tickets do not look like API tickets:\n  ${problems.slice(0, 30).join("\n  ")}`);
  const result = { apiTicket: created[0]!.runningId, seededTicket: Number(seeded.running_id), status: apiRow!.status, sampled: sample.length };
  progress(`seeded and API tickets look alike: ${JSON.stringify(result)}`);
  return result;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the SQL the tickets service runs for an agent list, step by step
 * as listAgentTickets runs them: for a search with words the walk, the longer walk when the
 * first found part of a page, the indexes when the walks did not fill it (sorted by creation:
 * the words' matches by blocks of tickets until they fill the page, then the page).
 */
async function explainList(client: pg.Client, companyId: string, user: SignedIn, raw: RawAgentListQuery): Promise<{ step: string; sql: string; plan: string }[]> {
  const db = createDb<TicketsDatabase>({ url: "postgres://unused/unused", schema: "tickets", maxConnections: 1 });
  const steps: { step: string; sql: string; plan: string }[] = [];
  const explain = async (step: string, statement: { sql: string; parameters: readonly unknown[] }, serial = false) => {
    // The service runs a search's index step without parallel workers.
    if (serial) await client.query("begin; set local max_parallel_workers_per_gather = 0");
    try {
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${statement.sql}`, [...statement.parameters]);
      steps.push({ step, sql: statement.sql, plan: rows.map((row) => row["QUERY PLAN"]).join("\n") });
      return (await client.query<{ id: string }>(statement.sql, [...statement.parameters])).rows;
    } finally {
      if (serial) await client.query("commit");
    }
  };
  try {
    const query = parseAgentListQuery(raw, { companyId, userId: user.userId, gameIds: user.gameIds, cursorSecret: CURSOR_SECRET, now: new Date() });
    const { search } = query;
    if (search !== undefined && search.words !== "") {
      const found = (await explain("the walk", searchWalkQuery(db, companyId, { ...query, search }).compile())).length;
      if (found > query.limit) return steps;
      const length = secondWalkLength(found, query.limit, longestSecondWalk(query.sort));
      if (length !== undefined && (await explain(`the walk of ${length}`, searchWalkQuery(db, companyId, { ...query, search }, length).compile())).length > query.limit) return steps;
    }
    let wordsPage: string[] | undefined;
    if (search !== undefined && search.words !== "" && query.sort === "createdAt") {
      wordsPage = [];
      // The company's newest running id, as newestRunningId reads it.
      const { rows: [newest] } = await client.query<{ newest: string | null }>("select max(running_id) as newest from tickets where company_id = $1", [companyId]);
      for (const window of searchWindows(query, Number(newest!.newest ?? 0))) {
        const windowQuery = searchWindowQuery(db, companyId, { ...query, search }, window, query.limit + 1 - wordsPage.length).compile();
        const rows = await explain(`the blocks ${JSON.stringify(window)}`, windowQuery, true);
        wordsPage.push(...rows.map((row) => row.id));
        if (wordsPage.length > query.limit) break;
      }
    }
    await explain(search === undefined ? "the page" : "the indexes", listAgentTicketsQuery(db, companyId, query, wordsPage).compile(), search !== undefined);
    return steps;
  } finally {
    await db.destroy();
  }
}

async function explainCounts(client: pg.Client, companyId: string, user: SignedIn): Promise<{ step: string; sql: string; plan: string }> {
  const db = createDb<TicketsDatabase>({ url: "postgres://unused/unused", schema: "tickets", maxConnections: 1 });
  try {
    const now = new Date();
    const compiled = countAgentViewsQuery(db, companyId, user.gameIds, AGENT_VIEWS.map((view) => ({ name: view, conditions: viewConditions(view, user.userId, now) }))).compile(db);
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${compiled.sql}`, [...compiled.parameters]);
    return { step: "the counts", sql: compiled.sql, plan: rows.map((row) => row["QUERY PLAN"]).join("\n") };
  } finally {
    await db.destroy();
  }
}

/**
 * BENCH_WORKSPACE_DATABASE: a database an earlier run seeded and kept (BENCH_KEEP_DATABASE=1),
 * measured again without seeding (about 10 minutes instead of 25): for a change to the code, not
 * to the data. BENCH_WORKSPACE_TICKETS must then say how many tickets it holds.
 */
const REUSED = process.env.BENCH_WORKSPACE_DATABASE || undefined;

interface WorkspaceTenant {
  companyId: string;
  games: Record<string, { id: string; environmentId: string }>;
  users: Record<string, string>;
  /** The bench API key's secret; unknown in a reused database. */
  apiKey?: string;
}

/** The ids of the workspace company that an earlier run seeded in the database. */
async function reusedTenant(databaseUrl: string, games: { ref: string; slug: string }[]): Promise<WorkspaceTenant> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: companies } = await client.query<{ id: string }>("select id from content.companies where name = 'Bench Workspace Studio' order by created_at desc limit 1");
    const companyId = companies[0]?.id;
    if (companyId === undefined) throw new Error("BENCH_WORKSPACE_DATABASE: no workspace company in this database (keep one with BENCH_KEEP_DATABASE=1)");
    const { rows: gameRows } = await client.query<{ id: string; slug: string; environment_id: string }>(
      `select g.id, g.slug, (select e.id from content.game_environments e where e.game_id = g.id order by e.created_at limit 1) as environment_id
       from content.games g where g.company_id = $1`,
      [companyId],
    );
    const { rows: userRows } = await client.query<{ id: string; email: string }>("select id, email from content.users where company_id = $1", [companyId]);
    return {
      companyId,
      games: Object.fromEntries(games.map(({ ref, slug }) => {
        const row = gameRows.find((game) => game.slug === slug);
        if (!row) throw new Error(`BENCH_WORKSPACE_DATABASE: no game ${slug}`);
        return [ref, { id: row.id, environmentId: row.environment_id }];
      })),
      users: Object.fromEntries(userRows.map((row) => [row.email.replace(/@bench\.example$/, ""), row.id])),
    };
  } finally {
    await client.end();
  }
}

export async function workspaceSuite(): Promise<SuiteResult> {
  if (!Number.isInteger(TICKETS) || TICKETS < 10_000) throw new Error(`BENCH_WORKSPACE_TICKETS must be an integer of at least 10000, not ${process.env.BENCH_WORKSPACE_TICKETS}`);
  if (!Number.isInteger(MESSAGES) || MESSAGES < TICKETS) throw new Error(`BENCH_WORKSPACE_MESSAGES must be an integer of at least the tickets, not ${process.env.BENCH_WORKSPACE_MESSAGES}`);
  const began = Date.now();
  // The auto-close sweep is off: it would close the seeded waiting tickets while we measure.
  const stack = await startStack({ CURSOR_SECRET, AUTO_CLOSE_INTERVAL_MS: "0", AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: "0" }, REUSED === undefined ? {} : { database: REUSED });
  const base = JSON.parse(readFileSync(path.join(here, "tickets-tenant.json"), "utf8")) as { games: { ref: string; slug: string }[] } & Record<string, unknown>;
  let tenant: WorkspaceTenant;
  if (REUSED === undefined) {
    const tenantFile = path.join(runDirectory(), "workspace-tenant.json");
    const users = [
      // Admins list their games too: content answers "may act on the game" from the explicit list only.
      ...Array.from({ length: ADMINS }, (_, i) => ({ ref: `admin${i}`, name: `Admin ${i}`, email: `admin${i}@bench.example`, role: "admin", games: [...GAMES] })),
      ...AGENT_GAMES.map((games, i) => ({ ref: `agent${i}`, name: `Agent ${i}`, email: `agent${i}@bench.example`, role: "agent", games })),
    ];
    writeFileSync(tenantFile, JSON.stringify({ ...base, company: { name: "Bench Workspace Studio", primaryLanguage: "en" }, users }));
    const applied = (await stack.applyTenant(tenantFile)) as Awaited<ReturnType<Stack["applyTenant"]>> & { users: Record<string, string> };
    tenant = {
      companyId: applied.companyId,
      games: Object.fromEntries(GAMES.map((ref) => [ref, { id: applied.games[ref]!.id, environmentId: Object.values(applied.games[ref]!.environments)[0]!.id }])),
      users: applied.users,
      apiKey: applied.apiKeys.bench!,
    };
  } else {
    tenant = await reusedTenant(stack.databaseUrl, base.games);
    progress(`reusing database ${REUSED}: company ${tenant.companyId}, no seeding`);
  }
  const games = GAMES.map((ref) => tenant.games[ref]!);
  // Who may be assigned each game's tickets: its agents and the admins, repeated to one length.
  const eligible = GAMES.map((game) => [...AGENT_GAMES.flatMap((gamesOf, i) => (gamesOf.includes(game) ? [tenant.users[`agent${i}`]!] : [])), ...Array.from({ length: ADMINS }, (_, i) => tenant.users[`admin${i}`]!)]);
  const width = Math.max(...eligible.map((list) => list.length));
  const assignees = eligible.map((list) => Array.from({ length: width }, (_, i) => list[i % list.length]!));

  const client = new pg.Client({ connectionString: stack.databaseUrl, options: "-c search_path=tickets,public" });
  client.on("error", (error) => {
    if (!isCleaningUp()) progress(`bench database connection: ${error.message}`);
  });
  await client.connect();
  try {
    let stages: SeedStage[] = [];
    let seedSeconds: number | null = null;
    if (REUSED === undefined) {
      progress(`seeding ${TICKETS} tickets and ${MESSAGES} messages`);
      const seedBegan = Date.now();
      stages = await seedWorkspace(client, {
        companyId: tenant.companyId, games, assignees, now: new Date(), tickets: TICKETS, messages: MESSAGES, players: Math.max(1000, Math.round(TICKETS / 4)),
      });
      seedSeconds = Math.round((Date.now() - seedBegan) / 100) / 10;
    }
    const { rows: [sizes] } = await client.query<Record<string, string>>(
      `select pg_size_pretty(pg_table_size('tickets')) as tickets, pg_size_pretty(pg_indexes_size('tickets')) as "ticketIndexes",
         pg_size_pretty(pg_table_size('ticket_events')) as events, pg_size_pretty(pg_indexes_size('ticket_events')) as "eventIndexes",
         (select count(*) from ticket_events where type in ('PLAYER_MESSAGE', 'AGENT_MESSAGE', 'PRIVATE_NOTE'))::text as messages`,
    );
    progress(`${seedSeconds === null ? "reused" : `seeded in ${seedSeconds} s`}: ${JSON.stringify(sizes)}`);
    const { rows: [mix] } = await client.query(
      `select (select jsonb_object_agg(status, n) from (select status, count(*) as n from tickets group by status) s) as statuses,
         (select jsonb_object_agg(language, n) from (select language, count(*) as n from tickets group by language) s) as languages,
         (select jsonb_object_agg(type, n) from (select type, count(*) as n from ticket_events group by type) s) as events`,
    );
    progress(`distribution: ${JSON.stringify(mix)}`);

    for (const email of ["admin0@bench.example", "agent0@bench.example"]) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    const admin: SignedIn = { userId: tenant.users.admin0!, ...(await signIn(stack, "admin0@bench.example")), gameIds: games.map((game) => game.id) };
    const agent: SignedIn = { userId: tenant.users.agent0!, ...(await signIn(stack, "agent0@bench.example")), gameIds: AGENT_GAMES[0]!.map((game) => tenant.games[game]!.id) };
    // A reused database was checked when it was seeded (its API key's secret is not kept).
    const alike = tenant.apiKey === undefined ? null : await checkAlike(stack, client, tenant.apiKey, games[0]!.id, admin);

    // The words searched: of the seed's own lists, and rare words read back from the messages.
    const { rows: rareRows } = await client.query<{ word: string }>(
      `select distinct substring(data->>'message' from 'Ref: ([a-z]+)') as word from ticket_events
       where type = 'PLAYER_MESSAGE' and data->>'message' like '%Ref: %' and seq % 101 = 0 limit 8`,
    );
    const words = {
      frequent: ["account", "update", "refund", "rewards"],
      mid: ["griffin", "talisman", "halberd", "chimera", "kraken", "wyvern"],
      rare: rareRows.map((row) => row.word),
      japanese: ["ログイン", "課金", "ドラゴン", "アップデート"],
      german: ["Rückerstattung", "Konto", "Schatztruhe", "Häuser"],
    };
    const { rows: ticketRows } = await client.query<{ id: string; running_id: string; game_id: string }>(
      "select id, running_id, game_id from tickets order by hashint8(running_id) limit 4000",
    );
    const ticketsOf = (user: SignedIn) => ticketRows.filter((row) => user.gameIds.includes(row.game_id));

    const cases: Case[] = [];
    for (const [user, who] of [["admin", admin], ["agent", agent]] as const) {
      const search = (name: string, list: string[]) =>
        cases.push({ name: `search ${name}`, kind: "search", user, paths: list.map((q) => `/agent-api/tickets?q=${encodeURIComponent(q)}&limit=${PAGE}`) });
      search("frequent words", words.frequent);
      search("mid-frequency words", words.mid);
      search("rare words", words.rare);
      search("Japanese", words.japanese);
      search("German", words.german);
      search("#running number", ticketsOf(who).slice(0, 500).map((row) => `#${row.running_id}`));
      cases.push({ name: "view counts", kind: "counts", user, paths: ["/agent-api/views"] });
      for (const view of AGENT_VIEWS) {
        for (const sort of ["createdAt", "lastActivityAt"]) {
          cases.push({ name: `view=${view} sort=${sort}`, kind: "page", user, paths: [`/agent-api/tickets?view=${view}&sort=${sort}&limit=${PAGE}`] });
        }
      }
      cases.push({ name: "ticket view", kind: "ticket view", user, paths: ticketsOf(who).map((row) => `/agent-api/tickets/${row.id}`) });
    }

    const origin = new URL(stack.gateway).origin;
    const results: CaseResult[] = [];
    const alone: { user: string; case: string; q: string; ms: number }[] = [];
    for (const c of cases) {
      const who = c.user === "admin" ? admin : agent;
      // Every path answers 200 before it is measured (a 4xx would be fast and meaningless). A case
      // that overloaded the stack leaves queries queued behind it: its 503s are retried.
      for (const p of c.paths.slice(0, 3)) {
        for (let attempt = 1; ; attempt++) {
          try {
            await getJson(stack, p, who.cookie);
            break;
          } catch (error) {
            if (attempt === 5 || !/: 50[34] /.test((error as Error).message)) throw error;
            await new Promise((resolve) => setTimeout(resolve, 5000));
          }
        }
      }
      let i = 0;
      const open = await openLoop({
        origin,
        rate: RATE,
        durationSeconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        request: () => ({ method: "GET", path: c.paths[i++ % c.paths.length]!, headers: { cookie: who.cookie } }),
      });
      progress(`${c.user}: ${c.name}: p50 ${open.p50} p95 ${open.p95} p99 ${open.p99} ms, ${open.answered} answers, errors ${open.errors + open.non2xx}`);
      results.push({ ...c, openLoop: open });
      // Which of a few searches costs what: each alone, the median of three in a row.
      if (c.kind === "search" && c.paths.length <= 8) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        for (const p of c.paths) {
          const times: number[] = [];
          for (let n = 0; n < 3; n++) {
            const at = performance.now();
            // A failure (the gateway's deadline) counts as the time it took.
            await getJson(stack, p, who.cookie).catch(() => undefined);
            times.push(performance.now() - at);
          }
          alone.push({ user: c.user, case: c.name, q: decodeURIComponent(/q=([^&]*)/.exec(p)![1]!), ms: Math.round(times.sort((a, b) => a - b)[1]! * 10) / 10 });
        }
      }
    }

    progress("explaining the searches, the counts and the pages sorted by last activity");
    const plans: { name: string; user: string; steps: { step: string; sql: string; plan: string }[] }[] = [];
    for (const [user, who] of [["admin", admin], ["agent", agent]] as const) {
      // Every word searched (the first two rare ones), for both users: a word can be slow for the
      // agent's games alone.
      const searched: [string, string[]][] = [["frequent", words.frequent], ["mid-frequency", words.mid], ["rare", words.rare.slice(0, 2)], ["Japanese", words.japanese], ["German", words.german]];
      for (const [name, list] of searched) {
        for (const q of list) {
          plans.push({ name: `q=${q} (${name})`, user, steps: await explainList(client, tenant.companyId, who, { q, limit: PAGE }) });
        }
      }
      for (const view of ["open", "unassigned", "mine"]) {
        plans.push({ name: `view=${view} sort=lastActivityAt`, user, steps: await explainList(client, tenant.companyId, who, { view, sort: "lastActivityAt", limit: PAGE }) });
      }
      plans.push({ name: "view counts", user, steps: [await explainCounts(client, tenant.companyId, who)] });
    }

    const limitOf = (c: Case) => (c.kind === "search" ? SEARCH_P95_MS : c.kind === "ticket view" ? VIEW_P95_MS : LIST_P95_MS);
    const targets: Target[] = results.map((r) => ({
      target: `${r.user}: ${r.name}: p95 at ${RATE}/s`,
      value: r.openLoop.p95,
      required: `<= ${limitOf(r)} ms, no errors`,
      met: r.openLoop.p95 <= limitOf(r) && r.openLoop.errors === 0 && r.openLoop.non2xx === 0,
      ...(r.openLoop.clientLimited ? { note: `client-limited: the generator sent up to ${r.openLoop.sendLagP99} ms late` } : {}),
    }));
    const rows: Row[] = results.map((r) => ({
      name: `${r.user}: ${r.name}`, connections: NaN, requestsPerSecond: r.openLoop.achievedRate, p50: r.openLoop.p50, p99: r.openLoop.p99, mean: NaN,
      errors: r.openLoop.errors, non2xx: r.openLoop.non2xx, p95: r.openLoop.p95, user: r.user, case: r.name, kind: r.kind, distinctPaths: r.paths.length,
    }));
    const table = [
      `One company: ${label(TICKETS)} tickets, ${Number(sizes!.messages).toLocaleString("en")} messages and notes; ${seedSeconds === null ? `the database ${REUSED}, seeded by an earlier run (BENCH_WORKSPACE_DATABASE)` : `seeded in ${seedSeconds} s`}. Open loop at ${RATE} requests/s, ${SECONDS} s a case after ${WARMUP_SECONDS} s of warm-up; pages of ${PAGE}. Admin: every game; agent: ${AGENT_GAMES[0]!.join(" and ")}.`,
      "",
      "| seeding stage | rows | seconds |",
      "|---|---|---|",
      ...stages.map((s) => `| ${s.stage} | ${s.rows ?? ""} | ${s.seconds} |`),
      "",
      "| user | request | distinct URLs | answers | p50 ms | p95 ms | p99 ms | max ms | errors |",
      "|---|---|---|---|---|---|---|---|---|",
      ...results.map((r) => `| ${r.user} | ${r.name} | ${r.paths.length} | ${r.openLoop.answered} | ${r.openLoop.p50} | ${r.openLoop.p95} | ${r.openLoop.p99} | ${r.openLoop.max} | ${r.openLoop.errors + r.openLoop.non2xx} |`),
      "",
      "| target | value | required | met |",
      "|---|---|---|---|",
      ...targets.map((t) => `| ${t.target} | ${t.value} | ${t.required} | ${t.met ? "yes" : "**no**"}${t.note ? ` (${t.note})` : ""} |`),
      "",
      "| user | search | q | alone, median of 3 (ms) |",
      "|---|---|---|---|",
      ...alone.map((a) => `| ${a.user} | ${a.case} | ${a.q} | ${a.ms} |`),
      "",
      "| user | query | steps: execution time (ms) |",
      "|---|---|---|",
      ...plans.map((p) => `| ${p.user} | ${p.name} | ${p.steps.map((s) => `${s.step}: ${/Execution Time: ([\d.]+) ms/.exec(s.plan)?.[1] ?? "?"}`).join(", ")} |`),
      "",
      ...plans.flatMap((p) => p.steps.map((s) => `--- EXPLAIN (ANALYZE, BUFFERS), ${p.user}: ${p.name}, ${s.step}\n${s.plan}\n`)),
    ].join("\n");
    progress(`workspace suite done in ${Math.round((Date.now() - began) / 1000)} s`);
    return {
      rows,
      table,
      details: {
        size: { tickets: TICKETS, messages: MESSAGES },
        seeding: { seconds: seedSeconds, stages, sizes, distribution: mix },
        alike,
        words,
        alone,
        rate: RATE,
        seconds: SECONDS,
        targets,
        allTargetsMet: targets.every((t) => t.met),
        plans,
        totalSeconds: Math.round((Date.now() - began) / 1000),
      },
    };
  } finally {
    await client.end();
  }
}
