// `pnpm bench tickets`: GET /tickets and POST /tickets through the whole stack while one
// company holds 10,000 tickets and then 1,000,000 (BENCH_TICKETS overrides the large size),
// bulk-loaded straight into Postgres. Per size: list latency of a first page (limit=100,
// 8 connections) unfiltered and with a status, a tag and a field filter, plus a deep page;
// a sequential cursor scan with limit=1000. At the large size also EXPLAIN (ANALYZE, BUFFERS)
// of the repository's list SQL and POST /tickets at 32 connections. Targets: list p50 at the
// large size within 1.5x of the small size; scan >= 20,000 tickets/s.
import path from "node:path";
import pg from "pg";
import { createDb } from "../../libs/db/src/index.ts";
import type { TicketsDatabase } from "../../services/tickets/src/index.ts";
import { encodeCursor } from "../../services/tickets/src/tickets/cursor.ts";
import { parseListQuery, type RawListQuery } from "../../services/tickets/src/tickets/list-query.ts";
import { listTicketsQuery } from "../../services/tickets/src/tickets/ticket.repository.ts";
import { durationSeconds, measure, type Row, type SuiteResult } from "./measure.ts";
import { isCleaningUp, progress, startStack, type Stack } from "./stack.ts";
import { seedTickets, type SeedCompany } from "./tickets-seed.ts";

const here = import.meta.dirname;
const LARGE = Number(process.env.BENCH_TICKETS ?? 1_000_000);
const SMALL = Math.min(10_000, LARGE);
/** The large-size scan stops after this many seconds once it has read SCAN_MINIMUM tickets. */
const SCAN_SECONDS = Number(process.env.BENCH_SCAN_SECONDS ?? 60);
const SCAN_MINIMUM = 200_000;
const LIST_CONNECTIONS = 8;
const CREATE_CONNECTIONS = 32;
const CURSOR_SECRET = "bench-cursor-secret";
const LIST_P50_TARGET = 1.5;
const SCAN_TARGET = 20_000;

const TAG = "bug";
const FIELD = { key: "category", value: "payment" };

interface ListCase {
  name: string;
  query: RawListQuery;
  /** Whether a ticket of the answer satisfies the filter (checked on one probe request). */
  check: (ticket: ApiTicket) => boolean;
}

interface ApiTicket {
  runningId: number;
  status: string;
  tags: string[];
  fields: Record<string, unknown>;
}

interface ScanResult {
  tickets: number;
  scanned: number;
  passes: number;
  complete: boolean;
  pages: number;
  seconds: number;
  ticketsPerSecond: number;
  outOfSequence: number;
}

const label = (n: number) => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

export function listUrl(gateway: string, query: RawListQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return `${gateway}/tickets?${params}`;
}

async function getJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/**
 * The company's whole keyset from the first ticket, as an integrating backend pages through it:
 * one client, one request at a time, limit=1000, following pagination.cursor. A pass stops at
 * the end, or once it has read `minimum` tickets and `budgetSeconds` have passed. A small
 * company (a pass of a few pages) is scanned again until `repeatSeconds` have passed, so the
 * rate is not that of ten requests.
 */
export async function scan(
  stack: Stack,
  headers: Record<string, string>,
  tickets: number,
  options: { minimum: number; budgetSeconds: number; repeatSeconds: number },
): Promise<ScanResult> {
  // One untimed page first: the limit=1000 path (JIT, connections) is cold otherwise.
  await getJson(listUrl(stack.gateway, { limit: 1000 }), headers);
  let outOfSequence = 0;
  let scanned = 0;
  let pages = 0;
  let passes = 0;
  let complete = false;
  const began = performance.now();
  let reported = began;
  const elapsed = () => (performance.now() - began) / 1000;
  do {
    passes++;
    let cursor: string | null = null;
    let expected = 1;
    let inPass = 0;
    for (;;) {
      const url = listUrl(stack.gateway, { limit: 1000, ...(cursor !== null ? { cursor } : {}) });
      const page = await getJson<{ tickets: ApiTicket[]; pagination: { cursor: string | null } }>(url, headers);
      pages++;
      for (const ticket of page.tickets) {
        if (ticket.runningId !== expected) outOfSequence++;
        expected = ticket.runningId + 1;
      }
      inPass += page.tickets.length;
      cursor = page.pagination.cursor;
      if (cursor === null) break;
      if (inPass >= options.minimum && elapsed() >= options.budgetSeconds) break;
      if (performance.now() - reported > 5000) {
        progress(`  scan: ${scanned + inPass} tickets, ${Math.round((scanned + inPass) / elapsed())}/s`);
        reported = performance.now();
      }
    }
    scanned += inPass;
    complete = cursor === null;
  } while (complete && elapsed() < options.repeatSeconds);
  const seconds = elapsed();
  const result = {
    tickets, scanned, passes, complete, pages, seconds: Math.round(seconds * 100) / 100, ticketsPerSecond: Math.round(scanned / seconds), outOfSequence,
  };
  progress(
    `scan at ${label(tickets)}: ${scanned} tickets (${complete ? `${passes} whole pass${passes > 1 ? "es" : ""}` : "first part"}) in ${result.seconds} s = ${result.ticketsPerSecond} tickets/s, ${outOfSequence} out of sequence`,
  );
  return result;
}

/** The keyset position of running id `runningId`, as a cursor the stack accepts (same CURSOR_SECRET). */
async function cursorAt(client: pg.Client, companyId: string, runningId: number): Promise<{ cursor: string; createdAt: Date }> {
  const { rows } = await client.query<{ created_at: Date }>("select created_at from tickets where company_id = $1 and running_id = $2", [companyId, runningId]);
  const createdAt = rows[0]!.created_at;
  return { cursor: encodeCursor(CURSOR_SECRET, companyId, "asc", { createdAt, runningId }), createdAt };
}

/** EXPLAIN (ANALYZE, BUFFERS) of exactly the SQL the tickets repository builds for `raw`. */
async function explain(client: pg.Client, companyId: string, raw: RawListQuery): Promise<{ sql: string; plan: string }> {
  const db = createDb<TicketsDatabase>({ url: "postgres://unused/unused", schema: "tickets", maxConnections: 1 });
  try {
    const query = parseListQuery(raw, { companyId, cursorSecret: CURSOR_SECRET });
    const compiled = listTicketsQuery(db, companyId, query).compile();
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${compiled.sql}`, [...compiled.parameters]);
    return { sql: compiled.sql, plan: rows.map((row) => row["QUERY PLAN"]).join("\n") };
  } finally {
    await db.destroy();
  }
}

export async function ticketsSuite(): Promise<SuiteResult> {
  // Below this a filtered first page (5% match) may not fill 100 tickets.
  if (!Number.isInteger(LARGE) || LARGE < 5000) throw new Error(`BENCH_TICKETS must be an integer of at least 5000, not ${process.env.BENCH_TICKETS}`);
  const began = Date.now();
  // The auto-close sweep is off: it would close the seeded waiting tickets while we measure.
  const stack = await startStack({ CURSOR_SECRET, AUTO_CLOSE_INTERVAL_MS: "0" });
  const tenant = await stack.applyTenant(path.join(here, "tickets-tenant.json"));
  const headers = { authorization: `Bearer ${tenant.apiKeys.bench!}` };
  const companyId = tenant.companyId;
  const games = ["galaxy", "farm", "racer", "dungeon"].map((ref) => {
    const game = tenant.games[ref]!;
    return { id: game.id, environmentId: Object.values(game.environments)[0]!.id };
  });
  // The whole history (LARGE tickets) ends a day ago; the small stage is its oldest part.
  const stepMs = Math.max(1, Math.floor((365 * 86_400_000) / LARGE));
  const company: SeedCompany = {
    companyId,
    games,
    start: new Date(Math.floor((Date.now() - 86_400_000) / 1000) * 1000 - LARGE * stepMs),
    stepMs,
    players: Math.max(1000, Math.round(LARGE / 4)),
  };

  const client = new pg.Client({ connectionString: stack.databaseUrl, options: "-c search_path=tickets,public" });
  // Dropping the database on Ctrl-C ends this connection: not an error then.
  client.on("error", (error) => {
    if (!isCleaningUp()) progress(`bench database connection: ${error.message}`);
  });
  await client.connect();
  const rows: Row[] = [];
  const scans: ScanResult[] = [];
  const seeding: { tickets: number; seconds: number }[] = [];
  const plans: { name: string; query: RawListQuery; sql: string; plan: string }[] = [];
  let create: Row | undefined;
  let createCheck: Record<string, unknown> | undefined;
  let distribution: Record<string, unknown> | undefined;

  try {
    let seeded = 0;
    for (const size of SMALL === LARGE ? [LARGE] : [SMALL, LARGE]) {
      const seedBegan = Date.now();
      await seedTickets(client, company, seeded + 1, size);
      seeded = size;
      seeding.push({ tickets: size, seconds: Math.round((Date.now() - seedBegan) / 100) / 10 });
      const { rows: [tableSize] } = await client.query<{ table: string; indexes: string }>(
        "select pg_size_pretty(pg_table_size('tickets')) as table, pg_size_pretty(pg_indexes_size('tickets')) as indexes",
      );
      progress(`company has ${size} tickets (table ${tableSize!.table}, indexes ${tableSize!.indexes})`);
      if (size === LARGE) {
        const { rows: [mix] } = await client.query(
          `select jsonb_object_agg(status, n) as statuses,
             (select count(distinct game_id) from tickets) as games,
             (select count(distinct service_player_id) from tickets) as players,
             round(100.0 * (select count(*) from tickets where tags @> $1::text[]) / $3, 2) as "tagPercent",
             round(100.0 * (select count(*) from tickets where fields @> $2::jsonb or fields @> jsonb_build_object($4::text, jsonb_build_array($5::text))) / $3, 2) as "fieldPercent"
           from (select status, count(*) as n from tickets group by status) s`,
          [[TAG], JSON.stringify({ [FIELD.key]: FIELD.value }), size, FIELD.key, FIELD.value],
        );
        distribution = { tickets: size, ...mix };
        progress(`distribution: ${JSON.stringify(distribution)}`);
      }

      const middle = await cursorAt(client, companyId, Math.floor(size / 2));
      const cases: ListCase[] = [
        { name: "no filter", query: { limit: 100 }, check: () => true },
        { name: 'status=["waiting"]', query: { limit: 100, status: '["waiting"]' }, check: (t) => t.status === "waiting" },
        { name: `tags=["${TAG}"]`, query: { limit: 100, tags: JSON.stringify([TAG]) }, check: (t) => t.tags.includes(TAG) },
        {
          name: `fields=${JSON.stringify({ [FIELD.key]: FIELD.value })}`,
          query: { limit: 100, fields: JSON.stringify({ [FIELD.key]: FIELD.value }) },
          check: (t) => {
            const value = t.fields[FIELD.key];
            return value === FIELD.value || (Array.isArray(value) && value.includes(FIELD.value));
          },
        },
        { name: "no filter, cursor at the middle", query: { limit: 100, cursor: middle.cursor }, check: () => true },
      ];
      for (const listCase of cases) {
        const url = listUrl(stack.gateway, listCase.query);
        const probe = await getJson<{ tickets: ApiTicket[] }>(url, headers);
        if (probe.tickets.length !== 100 || !probe.tickets.every(listCase.check)) {
          throw new Error(`GET /tickets ${listCase.name}: expected 100 matching tickets, got ${probe.tickets.length}`);
        }
        const row = await measure({ name: `GET /tickets?limit=100 ${listCase.name}`, url, connections: LIST_CONNECTIONS, headers });
        rows.push({ ...row, tickets: size, case: listCase.name });
      }

      const large = size === LARGE;
      progress(`cursor scan (limit=1000) at ${label(size)}${large && size > SCAN_MINIMUM ? `: at least ${SCAN_MINIMUM} tickets, then until done or ${SCAN_SECONDS} s` : ""}`);
      scans.push(
        await scan(stack, headers, size, large
          ? { minimum: Math.min(SCAN_MINIMUM, size), budgetSeconds: SCAN_SECONDS, repeatSeconds: 0 }
          : { minimum: size, budgetSeconds: Infinity, repeatSeconds: durationSeconds }),
      );

      if (large) {
        const deep = await cursorAt(client, companyId, Math.floor(size * 0.9));
        const shapes: [string, RawListQuery][] = [
          ['limit=100, status=["waiting"], first page', { limit: 100, status: '["waiting"]' }],
          ['limit=100, status=["waiting"], deep cursor (90%)', { limit: 100, status: '["waiting"]', cursor: deep.cursor }],
          ["limit=100, no filter, deep cursor (90%)", { limit: 100, cursor: deep.cursor }],
          ["limit=1000, no filter, deep cursor (90%): a scan page", { limit: 1000, cursor: deep.cursor }],
          [`limit=100, tags=["${TAG}"], first page`, { limit: 100, tags: JSON.stringify([TAG]) }],
          [`limit=100, fields={"${FIELD.key}":"${FIELD.value}"}, first page`, { limit: 100, fields: JSON.stringify({ [FIELD.key]: FIELD.value }) }],
        ];
        for (const [name, query] of shapes) {
          const { sql, plan } = await explain(client, companyId, query);
          plans.push({ name, query, sql, plan });
        }
        progress(`explained ${plans.length} list queries`);

        // POST /tickets: every request a new player (the duplicate check runs and finds nothing),
        // so nothing is refused as a duplicate; any non-2xx counts as an error.
        let n = 0;
        const galaxy = games[0]!.id;
        const body = () => {
          n++;
          const player = `bench-new-${n}`;
          return JSON.stringify({
            gameId: galaxy,
            message: `Bench ticket ${n}: the rewards of the season pass never showed up in my inventory after the purchase.`,
            language: "en",
            channels: ["email"],
            platform: "android",
            metadata: { player: { id: player, name: `New Player ${n}`, email: `${player}@example.com` }, tags: [TAG], fields: { [FIELD.key]: FIELD.value, level: 12 } },
          });
        };
        const first = await fetch(`${stack.gateway}/tickets`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: body() });
        const created = (await first.json()) as { runningId?: number };
        if (!first.ok || created.runningId !== size + 1) {
          throw new Error(`POST /tickets after the bulk load: ${first.status} ${JSON.stringify(created)}; expected runningId ${size + 1}`);
        }
        create = await measure({
          name: "POST /tickets",
          url: `${stack.gateway}/tickets`,
          connections: CREATE_CONNECTIONS,
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body,
        });
        rows.push({ ...create, tickets: size, case: "create" });
        const { rows: [check] } = await client.query<{ count: number; max: number; counter: number }>(
          `select count(*)::int as count, max(running_id)::int as max,
             (select last_running_id::int from ticket_counters where company_id = $1) as counter
           from tickets where company_id = $1`,
          [companyId],
        );
        createCheck = { ...check!, apiCreated: check!.count - size, gapless: check!.count === check!.max && check!.max === check!.counter };
        progress(`after POST: ${JSON.stringify(createCheck)}`);
      }
    }
  } finally {
    await client.end();
  }

  // Targets.
  const p50 = (size: number, name: string) => rows.find((r) => r.tickets === size && r.case === name)?.p50;
  const listTargets = rows
    .filter((r) => r.tickets === SMALL && SMALL !== LARGE)
    .map((r) => {
      const small = p50(SMALL, r.case as string)!;
      const large = p50(LARGE, r.case as string)!;
      // autocannon's percentiles are whole ms: compare with at least 1 ms.
      const ratio = Math.round((large / Math.max(1, small)) * 100) / 100;
      return { case: r.case as string, p50Small: small, p50Large: large, ratio, met: ratio <= LIST_P50_TARGET };
    });

  const table = [
    `Tickets in one company: ${label(SMALL)} then ${label(LARGE)}. GET rows: ${LIST_CONNECTIONS} connections; POST: ${CREATE_CONNECTIONS}.`,
    "",
    "| tickets | request | connections | req/s | p50 ms | p99 ms | mean ms | errors |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${label(r.tickets as number)} | ${r.name} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.mean} | ${r.errors + r.non2xx} |`),
    "",
    "| tickets | cursor scan, limit=1000: tickets read | seconds | tickets/s | target >= 20,000 |",
    "|---|---|---|---|---|",
    ...scans.map(
      (s) =>
        `| ${label(s.tickets)} | ${s.complete ? (s.passes > 1 ? `${s.passes} whole passes,` : "all") : "first"} ${s.scanned}${s.outOfSequence ? ` (${s.outOfSequence} out of sequence!)` : ""} | ${s.seconds} | ${s.ticketsPerSecond} | ${s.ticketsPerSecond >= SCAN_TARGET ? "met" : "missed"} |`,
    ),
    "",
    `| list p50 target (${label(LARGE)} within ${LIST_P50_TARGET}x of ${label(SMALL)}) | p50 ${label(SMALL)} | p50 ${label(LARGE)} | ratio | |`,
    "|---|---|---|---|---|",
    ...listTargets.map((t) => `| ${t.case} | ${t.p50Small} | ${t.p50Large} | ${t.ratio} | ${t.met ? "met" : "missed"} |`),
    "",
    ...plans.flatMap((p) => [`--- EXPLAIN (ANALYZE, BUFFERS) at ${label(LARGE)}: ${p.name}`, p.plan, ""]),
  ].join("\n");
  progress(`tickets suite done in ${Math.round((Date.now() - began) / 1000)} s`);

  return {
    rows,
    table,
    details: {
      sizes: { small: SMALL, large: LARGE },
      listConnections: LIST_CONNECTIONS,
      createConnections: CREATE_CONNECTIONS,
      seeding,
      distribution,
      scans,
      create: createCheck,
      targets: {
        listP50: { maxRatio: LIST_P50_TARGET, cases: listTargets },
        scan: {
          minTicketsPerSecond: SCAN_TARGET,
          bySize: scans.map((s) => ({ tickets: s.tickets, scanned: s.scanned, complete: s.complete, ticketsPerSecond: s.ticketsPerSecond, met: s.ticketsPerSecond >= SCAN_TARGET })),
        },
      },
      plans,
      totalSeconds: Math.round((Date.now() - began) / 1000),
    },
  };
}
