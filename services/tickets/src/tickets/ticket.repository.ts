// Queries on tickets and the per-company counters. Free functions taking the executor (the
// pool or the caller's transaction); no rules here.
import { PLANNED_EACH_TIME } from "@support/db";
import { sql, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder, type Updateable } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { RecordedEvent } from "../ticket-events/event.ts";
import { eventsInsert, type EventsTicket } from "../ticket-events/event.repository.ts";
import { OPEN_STATUSES, type AgentListQuery, type AssigneeCondition, type ViewConditions } from "./agent-list.ts";
import type { ListSort } from "./cursor.ts";
import type { ListQuery } from "./list-query.ts";
import { websearchText } from "@support/search-words";
import { HIGHLIGHT_START, HIGHLIGHT_STOP, type TicketSearch } from "./search.ts";
import type { NewTicket } from "./new-ticket.ts";
import type {
  Channel, FieldValues, Language, Platform, ResolutionType, SupportSource, Ticket, TicketStatus,
} from "./ticket.ts";
import type { TicketTable } from "./ticket.table.ts";

type Db = Kysely<TicketsDatabase>;

/**
 * The columns a Ticket is read from: single-ticket reads and RETURNING name them rather than `*`,
 * so the first message's two texts (read by the duplicate check only) and the bookkeeping
 * columns are neither sent nor parsed, and so Postgres prepares these statements once per
 * connection (a result of `*` could change under a prepared statement when a migration adds a
 * column). A list page reads `*` and is planned each time.
 */
const TICKET_COLUMNS = [
  "id", "company_id", "running_id", "game_id", "game_environment_id", "service_player_id", "player_external_id",
  "player_name", "email", "status", "support_source", "channels", "language", "platform", "resolution_type", "csat_score",
  "csat_review", "issue_summary", "issue_resolution", "follow_up_ticket_id", "reopened_from_ticket_id", "created_at",
  "last_activity_at", "tags", "fields", "metadata", "assignee_id", "waiting_since", "last_player_message_at",
] as const satisfies readonly (keyof TicketTable)[];
const TICKET_COLUMNS_SQL = sql.raw(TICKET_COLUMNS.join(", "));

type TicketRow = Pick<Selectable<TicketTable>, (typeof TICKET_COLUMNS)[number]>;

function toTicket(row: TicketRow): Ticket {
  return {
    id: row.id,
    companyId: row.company_id,
    runningId: Number(row.running_id),
    gameId: row.game_id,
    gameEnvironmentId: row.game_environment_id,
    servicePlayerId: row.service_player_id,
    playerId: row.player_external_id,
    playerName: row.player_name,
    email: row.email,
    status: row.status as TicketStatus,
    supportSource: row.support_source as SupportSource | null,
    channels: row.channels as Channel[],
    language: row.language as Language,
    platform: row.platform as Platform,
    resolutionType: row.resolution_type as ResolutionType | null,
    csatScore: row.csat_score,
    csatReview: row.csat_review,
    issueSummary: row.issue_summary,
    issueResolution: row.issue_resolution,
    followUpTicketId: row.follow_up_ticket_id,
    reopenedFromTicketId: row.reopened_from_ticket_id,
    createdAt: row.created_at,
    lastActivityAt: row.last_activity_at,
    tags: row.tags,
    fields: row.fields,
    metadata: row.metadata,
    assigneeId: row.assignee_id,
    waitingSince: row.waiting_since,
    lastPlayerMessageAt: row.last_player_message_at,
  };
}

/**
 * Inserts a new ticket (opened by the player's first message) under the company's next running
 * id, with its first events (in order), in the caller's transaction, and returns it. The row is
 * the NewTicket (its message the first message) and what opening it settled: the id, the game
 * environment, the service player, the status, the metadata and the message as the duplicate check
 * compares it. One statement: the counter row hands out the
 * id and the creation time, and stays locked until that transaction ends, so creations of one
 * company are serialised from here to commit: ids have no gaps (a rollback returns its id),
 * tickets become visible in running-id order, and created_at (never below the previous one, in
 * whole milliseconds) orders them exactly like the running id.
 */
export async function insertTicket(
  trx: Db,
  ticket: NewTicket,
  opened: { id: string; gameEnvironmentId: string; servicePlayerId: string; status: TicketStatus; metadata: FieldValues; firstMessageNormalized: string },
  events: readonly RecordedEvent[],
): Promise<Ticket> {
  const { rows } = await sql<TicketRow>`
    with counter as (
      insert into ticket_counters as c (company_id, last_running_id, last_created_at)
      values (${ticket.companyId}, 1, date_trunc('milliseconds', clock_timestamp()))
      on conflict (company_id) do update
        set last_running_id = c.last_running_id + 1,
            last_created_at = greatest(date_trunc('milliseconds', clock_timestamp()), c.last_created_at)
      returning last_running_id, last_created_at
    ),
    inserted as (
    insert into tickets (
      id, company_id, running_id, created_at, last_activity_at, game_id, game_environment_id, service_player_id,
      player_external_id, player_name, email, status, support_source, channels, language, platform, metadata, tags,
      fields, first_message, first_message_normalized, last_player_message_at, reopened_from_ticket_id
    )
    values (
      ${opened.id}, ${ticket.companyId}, (select last_running_id from counter), (select last_created_at from counter),
      (select last_created_at from counter), ${ticket.gameId}, ${opened.gameEnvironmentId}, ${opened.servicePlayerId},
      ${ticket.player.externalId}, ${ticket.player.name}, ${ticket.player.email}, ${opened.status}, ${ticket.supportSource},
      ${ticket.channels}::text[], ${ticket.language}, ${ticket.platform}, ${JSON.stringify(opened.metadata)}::jsonb,
      ${ticket.tags}::text[], ${JSON.stringify(ticket.fields)}::jsonb, ${ticket.message}, ${opened.firstMessageNormalized},
      (select last_created_at from counter), ${ticket.reopenedFromTicketId}
    )
    returning ${TICKET_COLUMNS_SQL}
    )${events.length > 0 ? sql`, events as (${eventsInsert({ id: opened.id, companyId: ticket.companyId, language: ticket.language, runningId: sql<number>`(select last_running_id from counter)` }, events)})` : sql``}
    select ${TICKET_COLUMNS_SQL} from inserted`.execute(trx);
  return toTicket(rows[0]!);
}

/** Records `followUpId` as the follow-up of a ticket that has none yet. */
export async function setFollowUpTicket(trx: Db, companyId: string, ticketId: string, followUpId: string): Promise<void> {
  await trx
    .updateTable("tickets")
    .set({ follow_up_ticket_id: followUpId })
    .where("company_id", "=", companyId)
    .where("id", "=", ticketId)
    .where("follow_up_ticket_id", "is", null)
    .execute();
}

/**
 * Serialises the creations of one player (until the transaction ends) so that two identical
 * requests sent at once cannot both pass the duplicate check, and orders them with the
 * player's erasure (which takes the same lock).
 */
export async function lockPlayerForCreation(trx: Db, companyId: string, servicePlayerId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`tickets:create:${companyId}:${servicePlayerId}`}, 0))`.execute(trx);
}

/**
 * What can refuse a player's new ticket, in one statement: whether the player is marked erased,
 * and (unless `checkDuplicate` is false) the oldest open ticket of the player in the game whose
 * first message is equal or similar.
 */
export async function findCreationObstacles(
  db: Db,
  where: { companyId: string; gameId: string; servicePlayerId: string; normalizedMessage: string; threshold: number; checkDuplicate: boolean },
): Promise<{ erased: boolean; duplicateId: string | undefined }> {
  const result = await sql<{ erased: boolean; duplicate_id: string | null }>`
    select
      exists (select 1 from erased_players where company_id = ${where.companyId} and service_player_id = ${where.servicePlayerId}) as erased,
      (select id from tickets
       where ${where.checkDuplicate}::boolean
         and company_id = ${where.companyId} and service_player_id = ${where.servicePlayerId}
         and game_id = ${where.gameId} and status <> 'closed'
         and (first_message_normalized = ${where.normalizedMessage}
              or similarity(first_message_normalized, ${where.normalizedMessage}) >= ${where.threshold})
       order by created_at, running_id
       limit 1) as duplicate_id`.execute(db);
  const row = result.rows[0]!;
  return { erased: row.erased, duplicateId: row.duplicate_id ?? undefined };
}

/** One ticket of the company; `lock` takes its row lock until the transaction ends. */
export async function findTicket(db: Db, companyId: string, ticketId: string, lock = false): Promise<Ticket | undefined> {
  let query = db.selectFrom("tickets").select(TICKET_COLUMNS).where("company_id", "=", companyId).where("id", "=", ticketId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toTicket(row) : undefined;
}

export type TicketChanges = Partial<
  Pick<
    Ticket,
    | "status" | "assigneeId" | "resolutionType" | "waitingSince" | "tags" | "fields" | "metadata" | "playerName" | "lastActivityAt"
    | "followUpTicketId" | "lastPlayerMessageAt"
  >
>;

/**
 * Applies the changes and appends `appended.events` (in order) to the ticket's events, in one
 * statement; returns the changed ticket.
 */
export async function updateTicket(
  trx: Db,
  ticketId: string,
  changes: TicketChanges,
  appended?: { ticket: EventsTicket; events: readonly RecordedEvent[] },
): Promise<Ticket> {
  const values: Updateable<TicketTable> = { updated_at: sql<Date>`clock_timestamp()` as never };
  if (changes.status !== undefined) {
    values.status = changes.status;
    // The closing time is kept while the ticket stays closed (a closed ticket's status action
    // changes nothing) and cleared when it opens again.
    values.closed_at = changes.status === "closed" ? (sql<Date>`coalesce(closed_at, clock_timestamp())` as never) : null;
  }
  if (changes.assigneeId !== undefined) values.assignee_id = changes.assigneeId;
  if (changes.resolutionType !== undefined) values.resolution_type = changes.resolutionType;
  if (changes.waitingSince !== undefined) values.waiting_since = changes.waitingSince;
  if (changes.tags !== undefined) values.tags = changes.tags;
  if (changes.fields !== undefined) values.fields = JSON.stringify(changes.fields);
  if (changes.metadata !== undefined) values.metadata = JSON.stringify(changes.metadata);
  if (changes.playerName !== undefined) values.player_name = changes.playerName;
  if (changes.lastActivityAt !== undefined) values.last_activity_at = changes.lastActivityAt;
  if (changes.followUpTicketId !== undefined) values.follow_up_ticket_id = changes.followUpTicketId;
  if (changes.lastPlayerMessageAt !== undefined) values.last_player_message_at = changes.lastPlayerMessageAt;
  const update = trx.updateTable("tickets").set(values).where("id", "=", ticketId).returning(TICKET_COLUMNS);
  const row = appended !== undefined && appended.events.length > 0
    ? (await sql<TicketRow>`with updated as (${update}), events as (${eventsInsert(appended.ticket, appended.events)}) select ${TICKET_COLUMNS_SQL} from updated`.execute(trx)).rows[0]
    : await update.executeTakeFirst();
  if (row === undefined) throw new Error(`ticket ${ticketId} to update not found`);
  return toTicket(row);
}

/**
 * Locks two tickets of the company in id order (so that two merges of the same pair, either way
 * round, wait for each other instead of deadlocking); a ticket not found is absent from the map.
 */
export async function lockTicketPair(trx: Db, companyId: string, ids: readonly [string, string]): Promise<Map<string, Ticket>> {
  const rows = await trx
    .selectFrom("tickets")
    .select(TICKET_COLUMNS)
    .where("company_id", "=", companyId)
    .where("id", "in", [...ids])
    .orderBy("id")
    .forUpdate()
    .execute();
  return new Map(rows.map((row) => [row.id, toTicket(row)]));
}

export async function setClientClockOffset(db: Db, ticketId: string, offsetMs: number): Promise<void> {
  await db.updateTable("tickets").set({ client_clock_offset_ms: offsetMs }).where("id", "=", ticketId).execute();
}

export async function findClientClockOffset(db: Db, ticketId: string): Promise<number | null> {
  const row = await db.selectFrom("tickets").select("client_clock_offset_ms").where("id", "=", ticketId).executeTakeFirst();
  return row?.client_clock_offset_ms === null || row === undefined ? null : Number(row.client_clock_offset_ms);
}

/**
 * One page of the company's tickets (limit + 1 rows, so the caller knows whether more
 * exist), keyset-paginated on (created_at, running_id). Every equality filter has an index
 * (company_id, <column>, created_at, running_id) and tags/fields use GIN containment, so a
 * page costs the same however many tickets the company has.
 */
export async function listTickets(db: Db, companyId: string, query: ListQuery): Promise<Ticket[]> {
  const rows = await listTicketsQuery(db, companyId, query).execute();
  return rows.map(toTicket);
}

/** The page query of listTickets, unexecuted (tests EXPLAIN it). */
export function listTicketsQuery(db: Db, companyId: string, query: ListQuery) {
  const descending = query.order === "desc";
  // `*` rather than TICKET_COLUMNS: measured, Postgres spends more projecting a hundred rows to
  // the column list than the tickets process saves by not parsing the two message texts.
  let select = withListFilters(db.selectFrom("tickets").selectAll().where("company_id", "=", companyId), query);
  if (query.cursor !== undefined) {
    const { createdAt, runningId } = query.cursor;
    select = descending
      ? select.where(sql<boolean>`(created_at, running_id) < (${createdAt}::timestamptz, ${runningId}::bigint)`)
      : select.where(sql<boolean>`(created_at, running_id) > (${createdAt}::timestamptz, ${runningId}::bigint)`);
  }
  const direction = descending ? "desc" : "asc";
  return select.orderBy("created_at", direction).orderBy("running_id", direction).limit(query.limit + 1);
}

/** The public list's filters (every one must match), on any select from tickets. */
function withListFilters<O>(
  select: SelectQueryBuilder<TicketsDatabase, "tickets", O>,
  query: Omit<ListQuery, "order" | "cursor" | "limit">,
): SelectQueryBuilder<TicketsDatabase, "tickets", O> {
  if (query.playerId !== undefined) select = select.where("player_external_id", "=", query.playerId);
  if (query.email !== undefined) select = select.where(sql<boolean>`lower(email) = lower(${query.email})`);
  if (query.gameId !== undefined) select = select.where("game_id", "=", query.gameId);
  if (query.ticketId !== undefined) select = select.where("id", "=", query.ticketId);
  if (query.statuses !== undefined) select = select.where("status", "in", query.statuses);
  if (query.tags !== undefined) select = select.where(sql<boolean>`tags @> ${query.tags}::text[]`);
  for (const [key, value] of Object.entries(query.fields ?? {})) {
    const contains = (v: unknown) => sql<boolean>`fields @> ${JSON.stringify({ [key]: v })}::jsonb`;
    if (typeof value === "string") {
      // A single option also matches a multi-select that contains it.
      select = select.where((eb) => eb.or([contains(value), contains([value])]));
    } else if (Array.isArray(value) && value.length === 1) {
      select = select.where((eb) => eb.or([contains(value), contains(value[0])]));
    } else {
      select = select.where(contains(value));
    }
  }
  if (query.createdAfter !== undefined) select = select.where("created_at", ">=", query.createdAfter.at);
  if (query.createdBefore !== undefined) {
    select = select.where("created_at", query.createdBefore.exclusive ? "<" : "<=", query.createdBefore.at);
  }
  return select;
}

/** Companies that have waiting tickets (the auto-close sweep visits each). */
export async function companiesWithWaitingTickets(db: Db): Promise<string[]> {
  const rows = await db.selectFrom("tickets").select("company_id").distinct().where("status", "=", "waiting").execute();
  return rows.map((row) => row.company_id);
}

/** Waiting tickets of a company that have waited (and heard nothing from the player) since before `cutoff`. */
export async function dueWaitingTicketIds(db: Db, companyId: string, cutoff: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("tickets")
    .select("id")
    .where("company_id", "=", companyId)
    .where("status", "=", "waiting")
    .where("waiting_since", "<=", cutoff)
    .where((eb) => eb.or([eb("last_player_message_at", "is", null), eb("last_player_message_at", "<=", cutoff)]))
    .orderBy("waiting_since")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Locks a waiting ticket unless another transaction (another replica's sweep, an action) holds it. */
export async function lockWaitingTicket(trx: Db, ticketId: string): Promise<Ticket | undefined> {
  const row = await trx
    .selectFrom("tickets")
    .select(TICKET_COLUMNS)
    .where("id", "=", ticketId)
    .where("status", "=", "waiting")
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row ? toTicket(row) : undefined;
}

/** A view's conditions in SQL (all must hold). "Open" is written `status <> 'closed'`, as the open-ticket index is. */
function viewSql(view: ViewConditions): RawBuilder<boolean> {
  const open = view.statuses.length === OPEN_STATUSES.length && OPEN_STATUSES.every((status) => view.statuses.includes(status));
  const parts: RawBuilder<unknown>[] = [open ? sql`status <> 'closed'` : sql`status = any(${[...view.statuses]}::text[])`];
  if (view.assignee !== undefined) parts.push(assigneeSql(view.assignee));
  if (view.closedSince !== undefined) parts.push(sql`closed_at >= ${view.closedSince}`);
  return sql<boolean>`(${sql.join(parts, sql` and `)})`;
}

function assigneeSql(assignee: AssigneeCondition): RawBuilder<boolean> {
  return assignee.type === "nobody" ? sql<boolean>`assignee_id is null` : sql<boolean>`assignee_id = ${assignee.id}::uuid`;
}

/** `text` as an ILIKE pattern matching it anywhere, its wildcards taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The conditions under which a ticket matches a search, any of which suffices (see
 * listAgentTicketsQuery): one of its events' tsvectors matches the words (the index is probed
 * with the words read in every configuration, then each event is checked with its own), or
 * the player's name, email or external id holds the substring (trigram indexes), or the running
 * number. Each is answered from an index scoped to the company.
 */
function searchConditions(companyId: string, search: TicketSearch, way: "index" | "probe" = "index", wordsPage?: readonly string[]): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  // The words' first page, read already by blocks of tickets (searchWordsByBlocks).
  if (search.words !== "" && wordsPage !== undefined) conditions.push(sql<boolean>`tickets.id = any(${[...wordsPage]}::uuid[])`);
  else if (search.words !== "") {
    const words = websearchText(search.words);
    // "probe": the ticket's own events, one ticket at a time (`offset 0` keeps Postgres from
    // turning this into one read of every matching event of the company). The words read in
    // every configuration are one constant (the planner folds the immutable function): most
    // events fail that match and are never matched with their own configuration, whose query
    // would be parsed again for each event.
    conditions.push(way === "probe"
      ? sql<boolean>`exists (
        select 1 from ticket_events e
        where e.ticket_id = tickets.id and e.search_vector is not null
          and e.search_vector @@ ticket_search_tsquery(${words}::text) and e.search_vector @@ websearch_to_tsquery(e.search_config, ${words}::text)
        offset 0)`
      // "index": every matching event of the company from the event index, once (an InitPlan),
      // then those tickets by their key. Only searches the walks could not answer come here, so
      // the matches are few; as a semi-join, Postgres misjudged a word read in 19 configurations
      // (or a CJK phrase) and walked the company's tickets instead (5 s at a million).
      : sql<boolean>`tickets.id = any(array(
        select e.ticket_id from ticket_events e
        where e.company_id = ${companyId}::uuid and e.search_vector is not null
          and e.search_vector @@ ticket_search_tsquery(${words}::text) and e.search_vector @@ websearch_to_tsquery(e.search_config, ${words}::text)))`);
  }
  const others: RawBuilder<unknown>[] = [];
  if (search.substring !== undefined) {
    const pattern = containsPattern(search.substring);
    for (const column of ["player_name", "email", "player_external_id"]) {
      others.push(sql`select s.id from tickets s where s.company_id = ${companyId}::uuid and s.${sql.ref(column)} ilike ${pattern}`);
    }
  }
  if (search.runningId !== undefined) {
    others.push(sql`select s.id from tickets s where s.company_id = ${companyId}::uuid and s.running_id = ${search.runningId}::bigint`);
  }
  if (others.length > 0) conditions.push(sql<boolean>`tickets.id in (${sql.join(others, sql` union all `)})`);
  return conditions;
}

/** The newest event of a ticket that a search's words matched, with its headline. */
export interface SearchEventHit {
  ticketId: string;
  eventId: string;
  type: string;
  /** The matched words between HIGHLIGHT_START and HIGHLIGHT_STOP, in at most two fragments. */
  headline: string;
  /** The event's searchable text (its first 4,000 characters). */
  text: string;
}

/**
 * ts_headline's options, marking matches with characters no searched text keeps (they are
 * replaced before): a text up to HEADLINE_WHOLE_TEXT characters is shown whole, a longer one
 * as up to two short fragments around its matches.
 */
const HEADLINE_MARKS = `StartSel="${HIGHLIGHT_START}", StopSel="${HIGHLIGHT_STOP}"`;
const HEADLINE_WHOLE = `${HEADLINE_MARKS}, HighlightAll=true`;
const HEADLINE_FRAGMENTS = `${HEADLINE_MARKS}, MaxWords=18, MinWords=6, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`;
const HEADLINE_WHOLE_TEXT = 200;

/** For each ticket, the newest of its events that `words` match (the first of searchConditions), with a headline. */
export async function searchEventHits(db: Db, ticketIds: readonly string[], words: string): Promise<SearchEventHit[]> {
  if (ticketIds.length === 0 || words === "") return [];
  const text = websearchText(words);
  // Planned for its words each time, as searchWindowQuery.
  const { rows } = await sql<SearchEventHit>`${sql.raw(PLANNED_EACH_TIME)}
    select t.id as "ticketId", h.id as "eventId", h.type, left(h.text, 4000) as text,
      ts_headline(h.search_config, translate(h.text, chr(2) || chr(3), '  '), websearch_to_tsquery(h.search_config, ${text}::text),
        case when length(h.text) <= ${HEADLINE_WHOLE_TEXT} then ${HEADLINE_WHOLE} else ${HEADLINE_FRAGMENTS} end) as headline
    from unnest(${ticketIds}::uuid[]) as t(id)
    cross join lateral (
      select e.id, e.type, e.search_config, ticket_event_search_text(e.type, e.data) as text
      from ticket_events e
      where e.ticket_id = t.id and e.search_vector is not null and e.search_vector @@ websearch_to_tsquery(e.search_config, ${text}::text)
      order by e.seq desc
      limit 1
    ) h`.execute(db);
  return rows;
}

/** The time an agent list is sorted by (then by running id). */
function sortKeySql(sort: ListSort): RawBuilder<Date> {
  if (sort === "slaDueAt") return sql<Date>`coalesce(sla_due_at, 'infinity'::timestamptz)`;
  return sort === "lastActivityAt" ? sql<Date>`coalesce(last_activity_at, created_at)` : sql<Date>`created_at`;
}

/** An agent list's filters but the search, unordered, and the ordering and page size of its pages. */
function agentListParts(db: Db, companyId: string, query: AgentListQuery) {
  const descending = query.order === "desc";
  const sortKey = sortKeySql(query.sort);
  const direction = sql.raw(descending ? "desc" : "asc");
  // One game is written as an equality: then an index led by (company_id, game_id) also gives the order.
  const filtered = (gameIds: readonly string[]) => {
    let select = withListFilters(db.selectFrom("tickets").where("company_id", "=", companyId), query)
      .where(gameIds.length === 1 ? sql<boolean>`game_id = ${gameIds[0]}::uuid` : sql<boolean>`game_id = any(${[...gameIds]}::uuid[])`);
    if (query.view !== undefined) select = select.where(viewSql(query.view));
    if (query.assignee !== undefined) select = select.where(assigneeSql(query.assignee));
    if (query.language !== undefined) select = select.where("language", "=", query.language);
    if (query.tier !== undefined) select = select.where(sql<boolean>`metadata @> ${JSON.stringify({ playerTier: query.tier })}::jsonb`);
    if (query.channel !== undefined) select = select.where(sql<boolean>`channels @> array[${query.channel}]::text[]`);
    if (query.cursor !== undefined) {
      const { createdAt, runningId } = query.cursor;
      // Past the last due time: tickets without an SLA clock, keyed "infinity".
      const key = createdAt.getTime() >= 8.64e15 ? "infinity" : createdAt;
      select = select.where(sql<boolean>`(${sortKey}, running_id) ${sql.raw(descending ? "<" : ">")} (${key}::timestamptz, ${runningId}::bigint)`);
    }
    return select;
  };
  const select = filtered(query.gameIds);
  const ordered = <DB, TB extends keyof DB, O>(builder: SelectQueryBuilder<DB, TB, O>, limit = query.limit + 1) =>
    builder.orderBy(sql`${sortKey} ${direction}`).orderBy(sql`running_id ${direction}`).limit(limit);
  /**
   * The first `limit` tickets (every column) in the list's order. Sorted by last activity across
   * several games: each game's own first `limit`, read in order from the activity index (led by
   * the game), then merged. An `= any(games)` gives that index no order: Postgres would read and
   * sort every matching ticket of the games (every open ticket for "All open").
   */
  const firstTickets = (limit = query.limit + 1) => {
    if (query.sort !== "lastActivityAt" || query.gameIds.length < 2) return ordered(select.selectAll(), limit);
    const perGame = query.gameIds.map((gameId) => sql`(${ordered(filtered([gameId]).selectAll(), limit)})`);
    return ordered(db.selectFrom(sql<Selectable<TicketTable>>`(${sql.join(perGame, sql` union all `)})`.as("tickets")).selectAll(), limit);
  };
  return { select, ordered, firstTickets };
}

/**
 * The page query of listAgentTickets, unexecuted (tests EXPLAIN it). Limit + 1 rows, like
 * listTickets. With a search: each search condition's own first page, then the first page of
 * their union, so that each condition is planned on its own (an `or` of them could only be
 * checked ticket by ticket); a rare word starts from the event index.
 */
export function listAgentTicketsQuery(db: Db, companyId: string, query: AgentListQuery, wordsPage?: readonly string[]) {
  const { select, ordered, firstTickets } = agentListParts(db, companyId, query);
  if (query.search === undefined) return firstTickets();
  const conditions = searchConditions(companyId, query.search, "index", wordsPage);
  if (conditions.length === 0) return ordered(select.selectAll().where(sql<boolean>`false`));
  const firstPages = conditions.map((condition) => sql`(${ordered(select.select("id").where(condition))})`);
  return ordered(db.selectFrom("tickets").selectAll().where("company_id", "=", companyId).where(sql<boolean>`id in (${sql.join(firstPages, sql` union `)})`));
}

/** How many of the newest tickets a search checks one by one before it asks the indexes. */
export const SEARCH_WALK = 500;

/** The longest second walk (6-20 µs a ticket on a busy two-core machine: 35-120 ms; the indexes read 0.5-1 s of matches for a word that needs it at a million tickets). */
export const SEARCH_WALK_LONGEST = 6_000;

/**
 * The longest second walk of a search sorted by creation: past it, reading the words by blocks
 * of tickets (searchWordsByBlocks) costs less, as a block's matches are few (at 20,000 tickets a
 * word in 5% of them: a walk of 765 read 3,700 buffers, the blocks 5,200).
 */
export const SEARCH_WALK_BEFORE_BLOCKS = 1_500;

/**
 * How far a second walk goes when the first found `found` (fewer than a page of `limit`) in its
 * SEARCH_WALK tickets: far enough to fill the page at the density the first walk saw, with half
 * as much again to spare; none when it found nothing or would walk more than `longest`
 * (SEARCH_WALK_LONGEST sorted by last activity, where the matches are then rare enough for the
 * indexes to read them all quickly; SEARCH_WALK_BEFORE_BLOCKS sorted by creation).
 */
export function secondWalkLength(found: number, limit: number, longest: number = SEARCH_WALK_LONGEST): number | undefined {
  if (found <= 0 || found > limit) return undefined;
  const length = Math.ceil(((limit + 1) * SEARCH_WALK * 1.5) / found);
  return length <= longest ? length : undefined;
}

/** The longest second walk of a list sorted by `sort`. */
export function longestSecondWalk(sort: ListSort): number {
  return sort === "createdAt" ? SEARCH_WALK_BEFORE_BLOCKS : SEARCH_WALK_LONGEST;
}

/**
 * A search's walk, unexecuted (tests EXPLAIN it): the `length` newest tickets of the list (after
 * the cursor), newest first, each checked against its own events until a page is full. When
 * they hold a whole page, that page is the answer (every ticket before the last of it was
 * checked); otherwise listAgentTicketsQuery finds the matches from the indexes. So words found
 * in many tickets cost a few hundred probes instead of reading every match from the event
 * index, whatever the planner estimates of them (it underestimates several words, phrases and
 * CJK pairs); words found in few cost at most SEARCH_WALK probes more. Words of the middle
 * walk a second time, further (secondWalkLength): sorted by creation those in 5-10% of the
 * tickets (rarer ones are read by blocks of tickets), sorted by last activity those in 1-10%
 * (at a million tickets the indexes would read tens of thousands of matches for them).
 */
export function searchWalkQuery(db: Db, companyId: string, query: AgentListQuery & { search: TicketSearch }, length = SEARCH_WALK) {
  const { ordered, firstTickets } = agentListParts(db, companyId, query);
  const conditions = searchConditions(companyId, query.search, "probe");
  const candidates = firstTickets(length).as("tickets");
  return ordered(db.selectFrom(candidates).selectAll().where(conditions.length === 0 ? sql<boolean>`false` : sql<boolean>`(${sql.join(conditions, sql` or `)})`));
}

/**
 * How many running ids a block of tickets holds: the event search index keys each event by its
 * ticket's block (array[running id / SEARCH_BLOCK], written as the migration's index expression).
 */
export const SEARCH_BLOCK = 4096;

/** How many blocks each read of a search by blocks asks for, in turn; the blocks after them are read at once. */
export const SEARCH_BLOCK_READS = [2, 4, 8, 16] as const;

/** A part of the company's tickets a search by blocks reads: some blocks, or every running id below or from one. */
export type SearchWindow = { blocks: number[] } | { runningBelow: number } | { runningFrom: number };

/**
 * The windows a search sorted by creation reads, in the list's order: from the block of the
 * cursor (or of the newest ticket, `newestRunningId`, descending; of the first, ascending),
 * SEARCH_BLOCK_READS blocks at a time, then every running id past them. Within a company the
 * running id orders tickets exactly as their creation time does (insertTicket), so the matches
 * of a window all come before those of the next.
 */
export function searchWindows(query: Pick<AgentListQuery, "order" | "cursor">, newestRunningId: number): SearchWindow[] {
  const descending = query.order === "desc";
  const newestBlock = Math.floor(newestRunningId / SEARCH_BLOCK);
  let next = query.cursor !== undefined ? Math.floor(query.cursor.runningId / SEARCH_BLOCK) : descending ? newestBlock : 0;
  const windows: SearchWindow[] = [];
  for (const count of SEARCH_BLOCK_READS) {
    const blocks: number[] = [];
    for (let i = 0; i < count && next >= 0 && next <= newestBlock; i++) {
      blocks.push(next);
      next += descending ? -1 : 1;
    }
    if (blocks.length > 0) windows.push({ blocks });
  }
  if (descending ? next >= 0 : next <= newestBlock) {
    windows.push(descending ? { runningBelow: (next + 1) * SEARCH_BLOCK } : { runningFrom: next * SEARCH_BLOCK });
  }
  return windows;
}

/**
 * The words' first page (limit tickets) within one window, unexecuted (tests EXPLAIN it): the
 * window's matching events from the event index (the blocks are keys of it, so only their
 * matches are read), then their tickets by key, with the list's filters and order.
 */
export function searchWindowQuery(db: Db, companyId: string, query: AgentListQuery & { search: TicketSearch }, window: SearchWindow, limit: number) {
  const { select, ordered } = agentListParts(db, companyId, query);
  const words = websearchText(query.search.words);
  const part = "blocks" in window
    ? sql`array[e.ticket_running_id / ${sql.raw(String(SEARCH_BLOCK))}] && ${window.blocks}::bigint[]`
    : "runningBelow" in window ? sql`e.ticket_running_id < ${window.runningBelow}::bigint` : sql`e.ticket_running_id >= ${window.runningFrom}::bigint`;
  // Planned for its words each time (PLANNED_EACH_TIME): a generic plan read a frequent word's
  // matches two to three times slower.
  return ordered(select.modifyFront(sql.raw(PLANNED_EACH_TIME)).select("id").where(sql<boolean>`tickets.id = any(array(
    select e.ticket_id from ticket_events e
    where e.company_id = ${companyId}::uuid and e.search_vector is not null and ${part}
      and e.search_vector @@ ticket_search_tsquery(${words}::text) and e.search_vector @@ websearch_to_tsquery(e.search_config, ${words}::text)))`), limit);
}

/** The newest running id of the company's tickets (undefined without tickets). */
export async function newestRunningId(db: Db, companyId: string): Promise<number | undefined> {
  const row = await db.selectFrom("tickets").select(sql<string | null>`max(running_id)`.as("newest")).where("company_id", "=", companyId).executeTakeFirstOrThrow();
  return row.newest === null ? undefined : Number(row.newest);
}

/**
 * The first page (limit + 1 tickets, or every one when fewer) of the tickets the search's words
 * match, sorted by creation: searchWindows in turn until they hold it. A word in 0.5% of the
 * tickets fills a page of 50 from the newest two or three blocks (a few hundred events and
 * tickets read) where the whole index step read every match (thousands at a million tickets).
 */
export async function searchWordsByBlocks(db: Db, companyId: string, query: AgentListQuery & { search: TicketSearch }): Promise<string[]> {
  const newest = await newestRunningId(db, companyId);
  const page: string[] = [];
  if (newest === undefined) return page;
  for (const window of searchWindows(query, newest)) {
    const rows = await searchWindowQuery(db, companyId, query, window, query.limit + 1 - page.length).execute();
    page.push(...rows.map((row) => row.id));
    if (page.length > query.limit) break;
  }
  return page;
}

/** How many tickets the list (its filters, after the cursor, without the search) holds, counted up to `most`. */
async function listedUpTo(db: Db, companyId: string, query: AgentListQuery, most: number): Promise<number> {
  const { firstTickets } = agentListParts(db, companyId, query);
  const row = await db.selectFrom(firstTickets(most).as("listed")).select(sql<number>`count(*)::int`.as("count")).executeTakeFirstOrThrow();
  return row.count;
}

/** One page of an agent list (limit + 1 rows), with each row's sort time for the next cursor. */
export async function listAgentTickets(db: Db, companyId: string, query: AgentListQuery): Promise<{ ticket: Ticket; sortedAt: Date; slaDueAt: Date | null }[]> {
  const { search } = query;
  let rows: Selectable<TicketTable>[] | undefined;
  // A page as long as the walk could never be filled by it.
  if (search !== undefined && search.words !== "" && query.limit < SEARCH_WALK) {
    const walked = await searchWalkQuery(db, companyId, { ...query, search }).execute();
    if (walked.length > query.limit) rows = walked;
    // A list of fewer tickets than the walk was walked whole: its matches are the answer.
    else if ((await listedUpTo(db, companyId, query, SEARCH_WALK)) < SEARCH_WALK) rows = walked;
    const length = rows === undefined ? secondWalkLength(walked.length, query.limit, longestSecondWalk(query.sort)) : undefined;
    if (length !== undefined) {
      const further = await searchWalkQuery(db, companyId, { ...query, search }, length).execute();
      if (further.length > query.limit) rows = further;
    }
  }
  // A search's index step reads few matches: the start of parallel workers, which Postgres
  // plans for the event index (it overestimates a word read in every configuration), cost more
  // than the reads (tens of milliseconds on a busy machine). Sorted by creation, the words'
  // matches are read by blocks of tickets, newest (or first) first; sorted by last activity,
  // which the events do not keep, all of them.
  rows ??= search === undefined
    ? await listAgentTicketsQuery(db, companyId, query).execute()
    : await db.transaction().execute(async (trx) => {
      await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
      const wordsPage = search.words !== "" && query.sort === "createdAt" ? await searchWordsByBlocks(trx, companyId, { ...query, search }) : undefined;
      return listAgentTicketsQuery(trx, companyId, query, wordsPage).execute();
    });
  return rows.map((row) => ({
    ticket: toTicket(row),
    slaDueAt: row.sla_due_at,
    sortedAt: query.sort === "lastActivityAt" ? (row.last_activity_at ?? row.created_at) : query.sort === "slaDueAt" ? (row.sla_due_at ?? new Date(8.64e15)) : row.created_at,
  }));
}

/**
 * The count-query of countAgentViews, unexecuted (tests EXPLAIN it): the views of open tickets
 * counted in one pass over the open-ticket index, every other view (closed in the last 7 days)
 * by a pass of its own. Each reads only columns of its partial index, so Postgres counts from
 * the index alone (an index-only scan, with the visibility map vacuum keeps): one statement
 * over the union of every view read tens of thousands of table rows at a million tickets.
 */
export function countAgentViewsQuery(db: Db, companyId: string, gameIds: readonly string[], views: readonly { name: string; conditions: ViewConditions }[]) {
  const scope = sql`company_id = ${companyId}::uuid and game_id = any(${[...gameIds]}::uuid[])`;
  const ofOpen = views.filter(({ conditions }) => conditions.statuses.every((status) => OPEN_STATUSES.includes(status)));
  const others = views.filter((view) => !ofOpen.includes(view));
  const counts = [
    ...ofOpen.map(({ name }) => sql`open.${sql.id(name)}`),
    ...others.map(({ name, conditions }) => sql`(select count(*)::int from tickets where ${scope} and ${viewSql(conditions)}) as ${sql.id(name)}`),
  ];
  const open = ofOpen.length === 0
    ? sql`(select) as open`
    : sql`(select ${sql.join(ofOpen.map(({ name, conditions }) => sql`count(*) filter (where ${viewSql(conditions)})::int as ${sql.id(name)}`))}
        from tickets where ${scope} and status <> 'closed') as open`;
  return sql<Record<string, number>>`select ${sql.join(counts)} from ${open}`;
}

export async function countAgentViews(
  db: Db,
  companyId: string,
  gameIds: readonly string[],
  views: readonly { name: string; conditions: ViewConditions }[],
): Promise<Record<string, number>> {
  const { rows } = await countAgentViewsQuery(db, companyId, gameIds, views).execute(db);
  return rows[0] ?? {};
}
