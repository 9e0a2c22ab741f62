// SQL of rules and their run history. Positions are 1..n per company without gaps; changes of
// the order take the company's rules lock (an advisory lock) so two admins never interleave.
import { sql, type Kysely, type Selectable } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { Rule, RuleAction, RuleCondition, RuleDefinition, RuleOutcome, RuleTrigger } from "./rule.ts";
import type { RuleRunTable, RuleTable } from "./rule.table.ts";

type Db = Kysely<TicketsDatabase>;

export interface RuleRun {
  id: string;
  ruleId: string;
  ruleName: string;
  ticketId: string;
  trigger: string;
  eventId: string;
  outcome: RuleOutcome;
  depth: number;
  actions: RuleAction[];
  error: string | null;
  createdAt: Date;
}

function toRule(row: Selectable<RuleTable>): Rule {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    enabled: row.enabled,
    position: row.position,
    source: row.source === "tenant_file" ? "tenant_file" : "console",
    trigger: row.trigger as RuleTrigger,
    conditions: row.conditions as RuleCondition[],
    actions: row.actions as RuleAction[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRun(row: Selectable<RuleRunTable>): RuleRun {
  return {
    id: row.id,
    ruleId: row.rule_id,
    ruleName: row.rule_name,
    ticketId: row.ticket_id,
    trigger: row.trigger,
    eventId: row.event_id,
    outcome: row.outcome as RuleOutcome,
    depth: row.depth,
    actions: row.actions as RuleAction[],
    error: row.error,
    createdAt: row.created_at,
  };
}

/** Serialises changes of one company's rules (creation, order, deletion). */
export async function lockCompanyRules(trx: Db, companyId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`rules:${companyId}`}, 0))`.execute(trx);
}

export async function listRules(db: Db, companyId: string): Promise<Rule[]> {
  const rows = await db.selectFrom("rules").selectAll().where("company_id", "=", companyId).orderBy("position").execute();
  return rows.map(toRule);
}

/** The enabled rules of one trigger type, in order: what an event runs. */
export async function listEnabledRules(db: Db, companyId: string, triggerType: string): Promise<Rule[]> {
  const rows = await db
    .selectFrom("rules")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("trigger_type", "=", triggerType)
    .where("enabled", "=", true)
    .orderBy("position")
    .execute();
  return rows.map(toRule);
}

export async function findRule(db: Db, companyId: string, ruleId: string): Promise<Rule | undefined> {
  const row = await db.selectFrom("rules").selectAll().where("company_id", "=", companyId).where("id", "=", ruleId).executeTakeFirst();
  return row ? toRule(row) : undefined;
}

export async function countRules(trx: Db, companyId: string): Promise<number> {
  const row = await trx.selectFrom("rules").select((eb) => eb.fn.countAll<string>().as("n")).where("company_id", "=", companyId).executeTakeFirstOrThrow();
  return Number(row.n);
}

function definitionValues(rule: RuleDefinition) {
  return {
    name: rule.name,
    enabled: rule.enabled,
    trigger_type: rule.trigger.type,
    trigger: JSON.stringify(rule.trigger),
    conditions: JSON.stringify(rule.conditions),
    actions: JSON.stringify(rule.actions),
  };
}

/** The rules a tenant file created (the only ones a file changes or deletes). */
export async function listFileRules(db: Db, companyId: string): Promise<Rule[]> {
  const rows = await db.selectFrom("rules").selectAll().where("company_id", "=", companyId).where("source", "=", "tenant_file").orderBy("position").execute();
  return rows.map(toRule);
}

export async function insertRule(trx: Db, companyId: string, rule: RuleDefinition, position: number, source: "console" | "tenant_file" = "console"): Promise<Rule> {
  const row = await trx.insertInto("rules").values({ company_id: companyId, position, source, ...definitionValues(rule) }).returningAll().executeTakeFirstOrThrow();
  return toRule(row);
}

export async function updateRuleRow(trx: Db, companyId: string, ruleId: string, rule: RuleDefinition): Promise<Rule | undefined> {
  const row = await trx
    .updateTable("rules")
    .set({ ...definitionValues(rule), updated_at: sql<Date>`now()` as never })
    .where("company_id", "=", companyId)
    .where("id", "=", ruleId)
    .returningAll()
    .executeTakeFirst();
  return row ? toRule(row) : undefined;
}

/** Deletes the rule and closes the gap in the order. */
export async function deleteRuleRow(trx: Db, companyId: string, ruleId: string): Promise<boolean> {
  const deleted = await trx.deleteFrom("rules").where("company_id", "=", companyId).where("id", "=", ruleId).returning("position").executeTakeFirst();
  if (!deleted) return false;
  await trx.updateTable("rules").set({ position: sql<number>`position - 1` as never }).where("company_id", "=", companyId).where("position", ">", deleted.position).execute();
  return true;
}

/** Sets positions 1..n in the order given (every rule of the company, checked by the caller). */
export async function setPositions(trx: Db, companyId: string, ruleIds: readonly string[]): Promise<void> {
  if (ruleIds.length === 0) return;
  await sql`
    update rules set position = ordered.position, updated_at = now()
    from unnest(${ruleIds}::uuid[]) with ordinality as ordered(id, position)
    where rules.company_id = ${companyId} and rules.id = ordered.id`.execute(trx);
}

/**
 * The rules that already ran on the ticket for this event (a redelivered event runs none of them
 * again); an event naming several tickets (an incident's opening) runs each rule once per ticket.
 */
export async function rulesRunForEvent(trx: Db, eventId: string, ticketId: string): Promise<Set<string>> {
  const rows = await trx.selectFrom("rule_runs").select("rule_id").where("event_id", "=", eventId).where("ticket_id", "=", ticketId).execute();
  return new Set(rows.map((row) => row.rule_id));
}

/** The depth of the rule's last applied run on the ticket: the events its actions caused are one deeper. */
export async function lastAppliedDepth(db: Db, ruleId: string, ticketId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("rule_runs")
    .select("depth")
    .where("ticket_id", "=", ticketId)
    .where("rule_id", "=", ruleId)
    .where("outcome", "=", "applied")
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.depth;
}

export interface NewRuleRun {
  companyId: string;
  rule: Rule;
  ticketId: string;
  trigger: string;
  eventId: string;
  outcome: RuleOutcome;
  depth: number;
  actions: readonly RuleAction[];
  error: string | null;
}

export async function insertRun(trx: Db, run: NewRuleRun): Promise<void> {
  await trx
    .insertInto("rule_runs")
    .values({
      company_id: run.companyId,
      rule_id: run.rule.id,
      rule_name: run.rule.name,
      ticket_id: run.ticketId,
      trigger: run.trigger,
      event_id: run.eventId,
      outcome: run.outcome,
      depth: run.depth,
      actions: JSON.stringify(run.actions),
      error: run.error,
    })
    .onConflict((oc) => oc.columns(["rule_id", "event_id"]).doNothing())
    .execute();
}

export async function listRuns(db: Db, companyId: string, filter: { ruleId?: string | undefined; ticketId?: string | undefined; limit: number }): Promise<RuleRun[]> {
  let query = db.selectFrom("rule_runs").selectAll().where("company_id", "=", companyId);
  if (filter.ruleId !== undefined) query = query.where("rule_id", "=", filter.ruleId);
  if (filter.ticketId !== undefined) query = query.where("ticket_id", "=", filter.ticketId);
  const rows = await query.orderBy("created_at", "desc").orderBy("id").limit(filter.limit).execute();
  return rows.map(toRun);
}

/** Whether the ticket event is the ticket's first player message (reported by ticket_created, not player_message). */
export async function isFirstPlayerMessage(db: Db, ticketId: string, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom("ticket_events")
    .select("id")
    .where("ticket_id", "=", ticketId)
    .where("type", "=", "PLAYER_MESSAGE")
    .orderBy("seq")
    .limit(1)
    .executeTakeFirst();
  return row?.id === eventId;
}

/** The ticket's first message, which text conditions read on every trigger but player_message. */
export async function firstMessageOf(db: Db, ticketId: string): Promise<string> {
  const row = await db.selectFrom("tickets").select("first_message").where("id", "=", ticketId).executeTakeFirst();
  return row?.first_message ?? "";
}

/** Every company's enabled time rules (the sweep's work list), in each company's order. */
export async function listEnabledTimeRules(db: Db): Promise<Rule[]> {
  const rows = await db.selectFrom("rules").selectAll().where("trigger_type", "=", "time").where("enabled", "=", true).orderBy("company_id").orderBy("position").execute();
  return rows.map(toRule);
}

/**
 * Open tickets of the company in `status` since at least `due` (when the last status change led
 * there, or their creation), with no player message since they entered it, on which the rule has
 * not run since: oldest entry first.
 */
export async function dueForTimeRule(db: Db, rule: Rule, status: string, due: Date, limit: number): Promise<{ ticketId: string; enteredAt: Date }[]> {
  const result = await sql<{ id: string; entered_at: Date }>`
    select t.id, coalesce(sc.at, t.created_at) as entered_at
    from tickets t
    left join lateral (select max(e.created_at) as at from ticket_events e where e.ticket_id = t.id and e.type = 'STATUS_CHANGED') sc on true
    where t.company_id = ${rule.companyId} and t.status = ${status}
      and coalesce(sc.at, t.created_at) <= ${due}
      and (t.last_player_message_at is null or t.last_player_message_at <= coalesce(sc.at, t.created_at))
      and not exists (
        select 1 from rule_runs r
        where r.rule_id = ${rule.id} and r.ticket_id = t.id and r.trigger = 'time' and r.created_at >= coalesce(sc.at, t.created_at)
      )
    order by entered_at
    limit ${limit}`.execute(db);
  return result.rows.map((row) => ({ ticketId: row.id, enteredAt: row.entered_at }));
}
