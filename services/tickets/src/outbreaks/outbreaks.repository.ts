// Queries of outbreak detection: the settings, the game's lock, the recent vectors and the
// incidents. No rules here.
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import { DEFAULT_OUTBREAK_SETTINGS, type OutbreakSettings } from "./outbreaks.ts";
import type { IncidentTable } from "./outbreaks.table.ts";

type Db = Kysely<TicketsDatabase>;

/** `lock`: the row is held until the transaction ends (a change's audit entry must see what the change replaced). */
export async function readSettings(db: Db, companyId: string, lock = false): Promise<OutbreakSettings> {
  let query = db.selectFrom("outbreak_settings").select(["enabled", "min_tickets", "window_minutes", "similarity"]).where("company_id", "=", companyId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) return { ...DEFAULT_OUTBREAK_SETTINGS };
  return { enabled: row.enabled, minTickets: row.min_tickets, windowMinutes: row.window_minutes, similarity: row.similarity };
}

export async function writeSettings(db: Db, companyId: string, settings: OutbreakSettings): Promise<void> {
  const values = { enabled: settings.enabled, min_tickets: settings.minTickets, window_minutes: settings.windowMinutes, similarity: settings.similarity };
  await db
    .insertInto("outbreak_settings")
    .values({ company_id: companyId, ...values })
    .onConflict((oc) => oc.column("company_id").doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
    .execute();
}

/**
 * Serialises detection for one game on every replica until the transaction ends, so that two
 * tickets arriving at once never open two incidents.
 */
export async function lockGameOutbreaks(trx: Db, companyId: string, gameId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`outbreaks:${companyId}:${gameId}`}, 0))`.execute(trx);
}

/** The new ticket's creation time and first player message ("" without one); undefined when it is gone. */
export async function ticketText(db: Db, ticketId: string): Promise<{ createdAt: Date; text: string } | undefined> {
  const { rows } = await sql<{ created_at: Date; message: string | null }>`
    select t.created_at,
      (select e.data->>'message' from ticket_events e where e.ticket_id = t.id and e.type = 'PLAYER_MESSAGE' order by e.seq limit 1) as message
    from tickets t where t.id = ${ticketId}`.execute(db);
  const row = rows[0];
  return row ? { createdAt: row.created_at, text: row.message ?? "" } : undefined;
}

/** The text detection compares: the ticket's first player message ("" without one). */
export async function firstPlayerMessage(db: Db, ticketId: string): Promise<string> {
  return (await ticketText(db, ticketId))?.text ?? "";
}

/**
 * In one statement, under the game's lock: the ticket's creation time and first player message
 * (undefined when the ticket is gone), whether it was decided already, the open incidents of the
 * game with their vectors, and the ids of its tickets since `since` not in an incident, newest
 * first, as one array (their vectors come from the cache).
 */
export async function gameState(
  db: Db, companyId: string, gameId: string, ticketId: string, since: Date, limit: number,
): Promise<{ ticket: { createdAt: Date; text: string } | undefined; decided: boolean; open: { id: string; vector: Buffer }[]; recentIds: string[] }> {
  const { rows } = await sql<{ kind: "t" | "i"; id: string | null; created_at: Date | null; message: string | null; decided: boolean | null; recent: string[] | null; vector: Buffer | null }>`
    select 't' as kind, null::uuid as id, t.created_at,
      (select e.data->>'message' from ticket_events e where e.ticket_id = t.id and e.type = 'PLAYER_MESSAGE' order by e.seq limit 1) as message,
      exists (select 1 from outbreak_vectors v where v.ticket_id = t.id) as decided,
      array(select v.ticket_id from outbreak_vectors v
        where v.company_id = ${companyId} and v.game_id = ${gameId} and v.created_at >= ${since} and v.incident_id is null and v.ticket_id <> t.id
        order by v.created_at desc limit ${limit}) as recent,
      null::bytea as vector
    from tickets t where t.id = ${ticketId}
    union all
    select 'i', id, null, null, null, null, vector from incidents where company_id = ${companyId} and game_id = ${gameId} and status = 'open'`.execute(db);
  const head = rows.find((row) => row.kind === "t");
  return {
    ticket: head ? { createdAt: head.created_at!, text: head.message ?? "" } : undefined,
    decided: head?.decided ?? false,
    open: rows.filter((row) => row.kind === "i").map((row) => ({ id: row.id!, vector: row.vector! })),
    recentIds: head?.recent ?? [],
  };
}

/** The stored vectors of these tickets. */
export async function vectorsOf(db: Db, ticketIds: readonly string[]): Promise<Map<string, Buffer>> {
  if (ticketIds.length === 0) return new Map();
  const rows = await db.selectFrom("outbreak_vectors").select(["ticket_id", "vector"]).where("ticket_id", "in", [...ticketIds]).execute();
  return new Map(rows.map((row) => [row.ticket_id, row.vector]));
}

/** Stores the ticket's vector and deletes the game's vectors older than the window (the table holds the window only), in one statement. */
export async function insertVector(db: Db, row: { ticketId: string; companyId: string; gameId: string; createdAt: Date; vector: Buffer; since: Date }): Promise<void> {
  await sql`
    with swept as (delete from outbreak_vectors where company_id = ${row.companyId} and game_id = ${row.gameId} and created_at < ${row.since})
    insert into outbreak_vectors (ticket_id, company_id, game_id, created_at, vector)
    values (${row.ticketId}, ${row.companyId}, ${row.gameId}, ${row.createdAt}, ${row.vector})
    on conflict (ticket_id) do nothing`.execute(db);
}

export async function insertIncident(db: Db, incident: Omit<IncidentTable, "closed_at" | "closed_by_user_id">): Promise<void> {
  await db.insertInto("incidents").values(incident).execute();
}

/** Links tickets to the incident (a ticket already in one stays there); answers the ids linked. */
export async function linkTickets(db: Db, incidentId: string, ticketIds: readonly string[], at: Date): Promise<string[]> {
  if (ticketIds.length === 0) return [];
  const rows = await db
    .insertInto("incident_tickets")
    .values(ticketIds.map((ticketId) => ({ ticket_id: ticketId, incident_id: incidentId, linked_at: at })))
    .onConflict((oc) => oc.column("ticket_id").doNothing())
    .returning("ticket_id")
    .execute();
  const linked = rows.map((row) => row.ticket_id);
  if (linked.length > 0) await db.updateTable("outbreak_vectors").set({ incident_id: incidentId }).where("ticket_id", "in", linked).execute();
  return linked;
}

export interface IncidentRow {
  id: string;
  companyId: string;
  gameId: string;
  title: string;
  status: "open" | "closed";
  openedAt: Date;
  closedAt: Date | null;
  closedByUserId: string | null;
  ticketCount: number;
}

const ticketCount = sql<string>`(select count(*) from incident_tickets it where it.incident_id = incidents.id)`;

function toIncident(row: { id: string; company_id: string; game_id: string; title: string; status: "open" | "closed"; opened_at: Date; closed_at: Date | null; closed_by_user_id: string | null; ticket_count: string }): IncidentRow {
  return {
    id: row.id, companyId: row.company_id, gameId: row.game_id, title: row.title, status: row.status, openedAt: row.opened_at,
    closedAt: row.closed_at, closedByUserId: row.closed_by_user_id, ticketCount: Number(row.ticket_count),
  };
}

const INCIDENT_COLUMNS = ["id", "company_id", "game_id", "title", "status", "opened_at", "closed_at", "closed_by_user_id"] as const;

export async function listIncidents(db: Db, companyId: string, gameIds: readonly string[] | undefined, includeClosed: boolean, limit: number): Promise<IncidentRow[]> {
  let query = db.selectFrom("incidents").select([...INCIDENT_COLUMNS, ticketCount.as("ticket_count")]).where("company_id", "=", companyId);
  if (gameIds !== undefined) {
    if (gameIds.length === 0) return [];
    query = query.where("game_id", "in", [...gameIds]);
  }
  if (!includeClosed) query = query.where("status", "=", "open");
  const rows = await query.orderBy("opened_at", "desc").orderBy("id").limit(limit).execute();
  return rows.map(toIncident);
}

export async function findIncident(db: Db, companyId: string, incidentId: string, lock = false): Promise<IncidentRow | undefined> {
  let query = db.selectFrom("incidents").select([...INCIDENT_COLUMNS, ticketCount.as("ticket_count")]).where("company_id", "=", companyId).where("id", "=", incidentId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toIncident(row) : undefined;
}

export async function incidentTicketIds(db: Db, incidentId: string): Promise<string[]> {
  // Tickets linked at once (those that opened it) in the order they were created.
  const rows = await db
    .selectFrom("incident_tickets as it")
    .innerJoin("tickets as t", "t.id", "it.ticket_id")
    .select("it.ticket_id")
    .where("it.incident_id", "=", incidentId)
    .orderBy("it.linked_at")
    .orderBy("t.created_at")
    .orderBy("t.id")
    .execute();
  return rows.map((row) => row.ticket_id);
}

export async function closeIncidentRow(db: Db, incidentId: string, userId: string, at: Date): Promise<void> {
  await db.updateTable("incidents").set({ status: "closed", closed_at: at, closed_by_user_id: userId }).where("id", "=", incidentId).execute();
}
