// Bulk load of one company's tickets straight into the tickets schema (not through the API):
// one `insert ... select from generate_series`, every attribute a deterministic function of
// the running id (hashint8), so a ticket looks the same whichever stage inserted it.
//
// Distributions (of every company's ticket): status closed 55%, new 10%, waiting 10%, assigned
// 12%, unassigned 5%, on_hold 8%; games 50/25/15/10%; tag `bug` 10%, `billing` 4%, `vip` 1%,
// `crash` 6% of the first game's; field `category` (dropdown) = "payment" 4% as one option and
// 1% inside a multi-select ["payment","account"] (so 5% match {"category":"payment"}), other
// options 35%; `level` 70%; `platform_version` 30%; `is_spender` 20%. Players: `players`
// of them, skewed (a few write often), 15% without an external id. created_at increases by
// `stepMs` per running id (whole milliseconds, like the API), running_id is gapless from 1.
//
// No ticket_events rows: neither the list query nor the create path (its duplicate check
// reads tickets only) touches them; only GET /tickets/{id}/events does.
import type pg from "pg";
import { progress } from "./stack.ts";

export interface SeedCompany {
  companyId: string;
  /** Game and first-environment ids, in the order of the weights 50/25/15/10%. */
  games: { id: string; environmentId: string }[];
  /** created_at of running id g is start + g * stepMs. */
  start: Date;
  stepMs: number;
  players: number;
}

/** A uniform [0, 1) number, a fixed function of the running id g and of k. */
const u = (k: number) => `((hashint8(g * 64 + ${k})::bigint + 2147483648) % 1000000)::float8 / 1e6`;

const MESSAGES = [
  "I bought the season pass yesterday but the rewards never showed up in my inventory. I restarted the game twice and logged out and in again.",
  "The game crashes every time I open the map after the last update. My device is up to date and I reinstalled the app, it still happens.",
  "Someone logged into my account from another country and spent my gems. I changed my password but I want my items back please.",
  "I cannot connect to the servers since this morning, it says error 503 and then goes back to the title screen. My internet works fine.",
  "I was charged twice for the same purchase of 1200 coins. Please refund one of the payments, I attached the receipt from the store.",
  "My progress was lost after I switched phones. I was level 57 and now I start from the tutorial again. I played with the same email.",
  "The event quest does not complete even though I collected all 20 items. The counter is stuck at 19/20 for two days now.",
  "How do I delete my account and all my data? I do not want to play anymore and I want everything removed from your servers.",
];

const PLATFORMS = ["ios", "ios", "android", "android", "android", "win", "macos", "web", "playstation_5", "switch", "xbox_series"];
const LANGUAGES = ["en", "en", "en", "en", "en", "de", "fr", "es", "pt-BR", "ja"];

const pick = (values: readonly string[], k: number) =>
  `(array[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(",")}])[1 + floor(${u(k)} * ${values.length})::int]`;

/** Inserts running ids from..to (inclusive) of the company, then sets its counter row. */
export async function insertTickets(client: pg.Client, company: SeedCompany, from: number, to: number): Promise<void> {
  const statement = `
    insert into tickets (company_id, running_id, game_id, game_environment_id, service_player_id, player_external_id, player_name,
      email, status, resolution_type, waiting_since, assignee_id, csat_score, support_source, channels, language, platform, metadata,
      tags, fields, first_message, first_message_normalized, last_player_message_at, created_at, last_activity_at, updated_at,
      closed_at)
    select $1::uuid, g, ($2::uuid[])[gi], ($3::uuid[])[gi], md5('bench-player-' || p)::uuid,
      case when anonymous then null else 'player-' || p end,
      case when anonymous then null else 'Player ' || p end,
      'player' || p || '@example.com',
      status,
      case when status = 'closed' then case when u_resolution < 0.7 then 'resolved' when u_resolution < 0.8 then 'rejected'
        when u_resolution < 0.95 then 'auto_closed' else 'merged' end end,
      case when status = 'waiting' then created_at + interval '2 hours' end,
      case when status in ('assigned', 'waiting', 'on_hold', 'closed') then md5('bench-agent-' || floor(u_agent * 25))::uuid end,
      case when status = 'closed' and u_csat < 0.3 then 1 + floor(u_csat / 0.3 * 5)::int end,
      source,
      case when source in ('IN_APP', 'WIDGET') then '{chat}'::text[] else '{email}'::text[] end,
      language, platform,
      jsonb_build_object('platform', platform, 'playerTier', 1 + p % 3),
      array_remove(array[
        case when u_bug < 0.10 then 'bug' end,
        case when u_billing < 0.04 then 'billing' end,
        case when u_vip < 0.01 then 'vip' end,
        case when gi = 1 and u_crash < 0.06 then 'crash' end]::text[], null),
      jsonb_strip_nulls(jsonb_build_object(
        'category', case when u_category < 0.04 then '"payment"'::jsonb when u_category < 0.05 then '["payment","account"]'::jsonb
          when u_category < 0.25 then '"gameplay"'::jsonb when u_category < 0.32 then '"technical"'::jsonb
          when u_category < 0.36 then '"account"'::jsonb when u_category < 0.40 then '"other"'::jsonb end,
        'level', case when u_level < 0.7 then to_jsonb(1 + floor(u_level / 0.7 * 120)::int) end,
        'platform_version', case when u_version < 0.3 then to_jsonb('17.' || floor(u_version * 20)::int) end,
        'is_spender', case when u_version > 0.8 then to_jsonb(true) end)),
      message || ' (order ' || g || ')',
      lower(message || ' (order ' || g || ')'),
      created_at, created_at, created_at + u_agent * interval '20 hours', created_at + u_agent * interval '20 hours',
      case when status = 'closed' then created_at + u_agent * interval '20 hours' end
    from (
      select g, created_at, u_resolution, u_agent, u_csat, u_bug, u_billing, u_vip, u_crash, u_category, u_level, u_version,
        case when u_game < 0.5 then 1 when u_game < 0.75 then 2 when u_game < 0.9 then 3 else 4 end as gi,
        case when u_status < 0.55 then 'closed' when u_status < 0.65 then 'new' when u_status < 0.75 then 'waiting'
          when u_status < 0.87 then 'assigned' when u_status < 0.92 then 'unassigned' else 'on_hold' end as status,
        case when u_source < 0.5 then 'IN_APP' when u_source < 0.7 then 'API' when u_source < 0.85 then 'EMAIL' else 'WIDGET' end as source,
        1 + floor($6::int * power(u_player, 1.5))::bigint as p,
        u_anonymous < 0.15 as anonymous,
        ${pick(LANGUAGES, 20)} as language,
        ${pick(PLATFORMS, 21)} as platform,
        ${pick(MESSAGES, 22)} as message
      from (
        select g, $4::timestamptz + (g * $5::bigint) * interval '1 millisecond' as created_at,
          ${u(0)} as u_game, ${u(1)} as u_status, ${u(2)} as u_bug, ${u(3)} as u_billing, ${u(4)} as u_vip, ${u(5)} as u_crash,
          ${u(6)} as u_category, ${u(7)} as u_level, ${u(8)} as u_version, ${u(9)} as u_resolution, ${u(10)} as u_player,
          ${u(11)} as u_anonymous, ${u(12)} as u_source, ${u(13)} as u_csat, ${u(14)} as u_agent
        from generate_series($7::bigint, $8::bigint) g
      ) h
    ) t`;
  await client.query(statement, [
    company.companyId,
    company.games.map((game) => game.id),
    company.games.map((game) => game.environmentId),
    company.start.toISOString(),
    company.stepMs,
    company.players,
    from,
    to,
  ]);
  // Later API creations continue the sequence (each creation's insert increments this row).
  await client.query(
    `insert into ticket_counters (company_id, last_running_id, last_created_at)
     select company_id, max(running_id), max(created_at) from tickets where company_id = $1 group by company_id
     on conflict (company_id) do update set last_running_id = excluded.last_running_id, last_created_at = excluded.last_created_at`,
    [company.companyId],
  );
}

/**
 * Grows the company to `to` tickets the way a bulk load should: drops the secondary indexes
 * of `tickets`, inserts, rebuilds each from its own definition (pg_get_indexdef, i.e. exactly
 * what the migration created), then VACUUM ANALYZE (statistics, visibility map, hint bits).
 * The primary key stays (ticket_events references it). Small loads keep the indexes.
 */
export async function seedTickets(client: pg.Client, company: SeedCompany, from: number, to: number): Promise<void> {
  const count = to - from + 1;
  const rebuild = count > 50_000;
  await client.query("set maintenance_work_mem = '512MB'");
  await client.query("set synchronous_commit = off");
  let indexes: { name: string; definition: string }[] = [];
  if (rebuild) {
    const result = await client.query<{ name: string; definition: string }>(
      `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
       from pg_index i
       where i.indrelid = 'tickets'::regclass
         and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    );
    indexes = result.rows;
    progress(`dropping ${indexes.length} secondary indexes for the bulk load`);
    for (const index of indexes) await client.query(`drop index ${index.name}`);
  }
  let began = Date.now();
  progress(`inserting running ids ${from}..${to} (${count} tickets)`);
  // Batches of 250k keep each statement's progress visible and its memory bounded.
  for (let first = from; first <= to; first += 250_000) {
    const last = Math.min(to, first + 250_000 - 1);
    await insertTickets(client, company, first, last);
    if (to - from > 250_000) progress(`  ... inserted up to ${last} (${Math.round(((last - from + 1) / (Date.now() - began)) * 1000)} rows/s)`);
  }
  progress(`inserted ${count} tickets in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  for (const index of indexes) {
    began = Date.now();
    await client.query(index.definition);
    progress(`built ${index.name} in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  }
  began = Date.now();
  await client.query("vacuum (analyze) tickets");
  await client.query("analyze ticket_counters");
  progress(`vacuum analyze in ${((Date.now() - began) / 1000).toFixed(1)} s`);
}
