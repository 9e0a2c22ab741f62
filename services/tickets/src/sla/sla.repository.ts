// Queries of SLA: the company's settings, the tickets a sweep looks at with their histories, and
// the once-only record of each warning and breach. No rules here.
import { sql, type Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { TicketStatus } from "../tickets/ticket.ts";
import type { SlaHistoryEntry, SlaSettings } from "./sla.ts";

type Db = Kysely<TicketsDatabase>;

export interface StoredSlaSettings extends SlaSettings {
  updatedAt: Date;
}

/** `lock`: the row is held until the transaction ends (a change's audit entry must see what the change replaced). */
export async function findSlaSettings(db: Db, companyId: string, lock = false): Promise<StoredSlaSettings | undefined> {
  let query = db.selectFrom("sla_settings").selectAll().where("company_id", "=", companyId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { calendar: row.calendar ?? null, policies: row.policies, updatedAt: row.updated_at };
}

export async function saveSlaSettings(db: Db, companyId: string, settings: SlaSettings, now: Date): Promise<StoredSlaSettings> {
  const values = { calendar: JSON.stringify(settings.calendar), policies: JSON.stringify(settings.policies), updated_at: now };
  await db
    .insertInto("sla_settings")
    .values({ company_id: companyId, ...values })
    .onConflict((oc) => oc.column("company_id").doUpdateSet(values))
    .execute();
  return { ...settings, updatedAt: now };
}

/** Companies with at least one SLA policy. */
export async function companiesWithSla(db: Db): Promise<string[]> {
  const rows = await db.selectFrom("sla_settings").select("company_id").where(sql<boolean>`jsonb_array_length(policies) > 0`).execute();
  return rows.map((row) => row.company_id);
}

export interface SweptTicket {
  id: string;
  companyId: string;
  runningId: number;
  gameId: string;
  status: TicketStatus;
  tags: string[];
  tier: number | null;
  assigneeId: string | null;
  createdAt: Date;
  /** The due time stored by the last sweep. */
  slaDueAt: Date | null;
}

const tier = sql<number | null>`case when jsonb_typeof(metadata->'playerTier') = 'number' then (metadata->>'playerTier')::numeric end`;

/** The company's tickets open, or closed since `closedSince` (a clock stopped late since the last sweep), after `afterId` in id order. */
export async function listSweepTickets(db: Db, companyId: string, closedSince: Date, afterId: string | null, limit: number): Promise<SweptTicket[]> {
  let query = db
    .selectFrom("tickets")
    .select(["id", "company_id", "running_id", "game_id", "status", "tags", "assignee_id", "created_at", "sla_due_at", tier.as("tier")])
    .where("company_id", "=", companyId)
    .where((eb) => eb.or([eb("closed_at", "is", null), eb("closed_at", ">=", closedSince)]))
    .orderBy("id")
    .limit(limit);
  if (afterId !== null) query = query.where("id", ">", afterId);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id, companyId: row.company_id, runningId: row.running_id, gameId: row.game_id, status: row.status as TicketStatus, tags: row.tags,
    tier: row.tier === null ? null : Number(row.tier), assigneeId: row.assignee_id, createdAt: row.created_at, slaDueAt: row.sla_due_at,
  }));
}

/** The company's tickets created in [from, to), after `afterId` in id order. */
export async function listCreatedTickets(db: Db, companyId: string, from: Date, to: Date, afterId: string | null, limit: number): Promise<SweptTicket[]> {
  let query = db
    .selectFrom("tickets")
    .select(["id", "company_id", "running_id", "game_id", "status", "tags", "assignee_id", "created_at", "sla_due_at", tier.as("tier")])
    .where("company_id", "=", companyId)
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .orderBy("id")
    .limit(limit);
  if (afterId !== null) query = query.where("id", ">", afterId);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id, companyId: row.company_id, runningId: row.running_id, gameId: row.game_id, status: row.status as TicketStatus, tags: row.tags,
    tier: row.tier === null ? null : Number(row.tier), assigneeId: row.assignee_id, createdAt: row.created_at, slaDueAt: row.sla_due_at,
  }));
}

/** The messages and status changes of the tickets, in order (private notes and other events do not move a clock). */
export async function listHistories(db: Db, ticketIds: readonly string[]): Promise<Map<string, SlaHistoryEntry[]>> {
  const histories = new Map<string, SlaHistoryEntry[]>(ticketIds.map((id) => [id, []]));
  if (ticketIds.length === 0) return histories;
  const rows = await db
    .selectFrom("ticket_events")
    .select(["id", "ticket_id", "type", "data", "created_at"])
    .where("ticket_id", "in", ticketIds)
    .where("type", "in", ["PLAYER_MESSAGE", "AGENT_MESSAGE", "STATUS_CHANGED"])
    .orderBy("ticket_id")
    .orderBy("seq")
    .execute();
  for (const row of rows) {
    const entry: SlaHistoryEntry =
      row.type === "STATUS_CHANGED"
        ? { type: "STATUS_CHANGED", id: row.id, at: row.created_at, from: row.data.from as TicketStatus, to: row.data.to as TicketStatus }
        : { type: row.type as "PLAYER_MESSAGE" | "AGENT_MESSAGE", id: row.id, at: row.created_at };
    histories.get(row.ticket_id)!.push(entry);
  }
  return histories;
}

/** Stores each ticket's next SLA due time where it changed (null: no clock running). */
export async function saveDueTimes(db: Db, dues: ReadonlyMap<string, Date | null>, previous: ReadonlyMap<string, Date | null>): Promise<void> {
  const changed = [...dues].filter(([id, due]) => (previous.get(id)?.getTime() ?? null) !== (due?.getTime() ?? null));
  if (changed.length === 0) return;
  await sql`
    update tickets t set sla_due_at = c.due
    from unnest(${changed.map(([id]) => id)}::uuid[], ${changed.map(([, due]) => due?.toISOString() ?? null)}::timestamptz[]) as c(id, due)
    where t.id = c.id`.execute(db);
}

/** Clears the due times of a company's tickets (it has no SLA policy any more). */
export async function clearDueTimes(db: Db, companyId: string): Promise<void> {
  await db.updateTable("tickets").set({ sla_due_at: null }).where("company_id", "=", companyId).where("sla_due_at", "is not", null).execute();
}

/** Records the notice; false when it was recorded before (by this or another replica). */
export async function claimNotice(db: Db, notice: { ticketId: string; companyId: string; metric: string; cycle: string; kind: "warning" | "breach"; policyId: string; dueAt: Date }): Promise<boolean> {
  const row = await db
    .insertInto("sla_notices")
    .values({ ticket_id: notice.ticketId, company_id: notice.companyId, metric: notice.metric, cycle: notice.cycle, kind: notice.kind, policy_id: notice.policyId, due_at: notice.dueAt })
    .onConflict((oc) => oc.doNothing())
    .returning("ticket_id")
    .executeTakeFirst();
  return row !== undefined;
}
