// The triage's queries: the labelled history a company's model learns from, the stored models,
// the company's threshold, the once-per-ticket record and the predictions.
import { sql, type Kysely } from "@support/db";
import type { TicketsDatabase } from "../database.ts";
import type { FieldValues } from "../tickets/ticket.ts";
import type { TriagePredictionTable } from "./triage.table.ts";

type Db = Kysely<TicketsDatabase>;

/** A closed ticket as the training reads it: texts, final values and who changed them last. */
export interface HistoryTicket {
  gameId: string;
  language: string;
  firstMessage: string;
  /** The player's messages, first first. */
  messages: string[];
  tags: string[];
  fields: FieldValues;
  /** The actor type of the last TAGS_CHANGED event, or null when the tags never changed after creation. */
  tagsChangedBy: string | null;
  /** Every FIELDS_CHANGED event, oldest first: the keys it changed and its actor type. */
  fieldChanges: { keys: string[]; actor: string }[];
}

/**
 * The company's tickets resolved since `since` (newest first, at most `limit`), for training:
 * what an agent decided is read from the final state, and the events say whether it was an agent.
 */
export async function listTrainingTickets(db: Db, companyId: string, since: Date, limit: number): Promise<HistoryTicket[]> {
  const rows = await db
    .selectFrom("tickets as t")
    .select([
      "t.game_id", "t.language", "t.first_message", "t.tags", "t.fields",
      sql<string[] | null>`(select array_agg(e.data->>'message' order by e.seq) from ticket_events e where e.ticket_id = t.id and e.type = 'PLAYER_MESSAGE')`.as("messages"),
      sql<string | null>`(select e.actor->>'type' from ticket_events e where e.ticket_id = t.id and e.type = 'TAGS_CHANGED' order by e.seq desc limit 1)`.as("tags_changed_by"),
      sql<{ keys: string[]; actor: string }[] | null>`(select jsonb_agg(jsonb_build_object('keys', (select coalesce(jsonb_agg(k), '[]'::jsonb) from jsonb_object_keys(e.data->'changed') k), 'actor', e.actor->>'type') order by e.seq) from ticket_events e where e.ticket_id = t.id and e.type = 'FIELDS_CHANGED')`.as("field_changes"),
    ])
    .where("t.company_id", "=", companyId)
    .where("t.resolution_type", "=", "resolved")
    .where("t.closed_at", ">=", since)
    .orderBy("t.closed_at", "desc")
    .orderBy("t.id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    gameId: row.game_id,
    language: row.language,
    firstMessage: row.first_message,
    messages: row.messages ?? [],
    tags: row.tags,
    fields: row.fields,
    tagsChangedBy: row.tags_changed_by,
    fieldChanges: row.field_changes ?? [],
  }));
}

/** Companies with tickets resolved since `since`: the ones the periodic training looks at. */
export async function companiesWithResolvedTickets(db: Db, since: Date): Promise<string[]> {
  const rows = await db.selectFrom("tickets").select("company_id").distinct().where("resolution_type", "=", "resolved").where("closed_at", ">=", since).execute();
  return rows.map((row) => row.company_id);
}

export interface StoredModel {
  format: number;
  trainedAt: Date;
  tickets: number;
  model: unknown;
}

export async function findModel(db: Db, companyId: string): Promise<StoredModel | undefined> {
  const row = await db.selectFrom("triage_models").select(["format", "trained_at", "tickets", "model"]).where("company_id", "=", companyId).executeTakeFirst();
  return row ? { format: row.format, trainedAt: row.trained_at, tickets: row.tickets, model: row.model } : undefined;
}

/** Replaces the company's model in one statement: readers see the old or the new one whole. */
export async function saveModel(db: Db, companyId: string, model: { format: number; trainedAt: Date; tickets: number; schema: unknown; json: unknown }): Promise<void> {
  const values = { format: model.format, trained_at: model.trainedAt, tickets: model.tickets, schema: JSON.stringify(model.schema), model: JSON.stringify(model.json) };
  await db.insertInto("triage_models").values({ company_id: companyId, ...values }).onConflict((oc) => oc.column("company_id").doUpdateSet(values)).execute();
}

export async function deleteModel(db: Db, companyId: string): Promise<void> {
  await db.deleteFrom("triage_models").where("company_id", "=", companyId).execute();
}

/** `lock`: the row is held until the transaction ends (a change's audit entry must see what the change replaced). */
export async function findThreshold(db: Db, companyId: string, lock = false): Promise<number | undefined> {
  let query = db.selectFrom("triage_settings").select("threshold").where("company_id", "=", companyId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row?.threshold;
}

export async function saveThreshold(db: Db, companyId: string, threshold: number): Promise<void> {
  await db
    .insertInto("triage_settings")
    .values({ company_id: companyId, threshold })
    .onConflict((oc) => oc.column("company_id").doUpdateSet({ threshold, updated_at: sql<Date>`now()` }))
    .execute();
}

/**
 * What a classification needs to know first, in one round trip: whether the ticket was
 * classified already (a later player message), when the company's model was stored (null: none)
 * and its threshold (null: the default).
 */
export async function findTriageState(db: Db, companyId: string, ticketId: string): Promise<{ classified: boolean; trainedAt: Date | null; threshold: number | null }> {
  const { rows } = await sql<{ classified: boolean; trained_at: Date | null; threshold: number | null }>`
    select exists (select 1 from triage_runs where ticket_id = ${ticketId}) as classified,
      (select trained_at from triage_models where company_id = ${companyId}) as trained_at,
      (select threshold from triage_settings where company_id = ${companyId}) as threshold`.execute(db);
  const row = rows[0]!;
  return { classified: row.classified, trainedAt: row.trained_at, threshold: row.threshold };
}

/** Records that the ticket is being classified; false when it was already (a redelivery, a second player message). */
export async function claimRun(db: Db, companyId: string, ticketId: string, modelTrainedAt: Date | null): Promise<boolean> {
  const row = await db
    .insertInto("triage_runs")
    .values({ ticket_id: ticketId, company_id: companyId, model_trained_at: modelTrainedAt })
    .onConflict((oc) => oc.column("ticket_id").doNothing())
    .returning("ticket_id")
    .executeTakeFirst();
  return row !== undefined;
}

export type NewPrediction = Pick<TriagePredictionTable, "kind" | "name" | "value" | "confidence" | "decision" | "state" | "model">;

export async function insertPredictions(db: Db, companyId: string, ticketId: string, predictions: NewPrediction[]): Promise<void> {
  if (predictions.length === 0) return;
  await db
    .insertInto("triage_predictions")
    .values(predictions.map((p) => ({ ...p, company_id: companyId, ticket_id: ticketId })))
    .onConflict((oc) => oc.columns(["ticket_id", "kind", "name"]).doNothing())
    .execute();
}

export interface Prediction {
  id: string;
  ticketId: string;
  kind: "tag" | "field";
  name: string;
  value: string;
  confidence: number;
  decision: "set" | "suggest";
  state: "set" | "pending" | "applied" | "dismissed";
  createdAt: Date;
}

const PREDICTION_COLUMNS = ["id", "ticket_id", "kind", "name", "value", "confidence", "decision", "state", "created_at"] as const;

function toPrediction(row: Pick<TriagePredictionTable, "kind" | "name" | "value" | "confidence" | "decision" | "state"> & { id: string; ticket_id: string; created_at: Date }): Prediction {
  return { id: row.id, ticketId: row.ticket_id, kind: row.kind, name: row.name, value: row.value, confidence: row.confidence, decision: row.decision, state: row.state, createdAt: row.created_at };
}

export async function listTicketPredictions(db: Db, companyId: string, ticketId: string): Promise<Prediction[]> {
  const rows = await db.selectFrom("triage_predictions").select(PREDICTION_COLUMNS).where("company_id", "=", companyId).where("ticket_id", "=", ticketId).orderBy("confidence", "desc").orderBy("name").execute();
  return rows.map(toPrediction);
}

export async function findPrediction(db: Db, companyId: string, ticketId: string, id: string, lock = false): Promise<Prediction | undefined> {
  let query = db.selectFrom("triage_predictions").select(PREDICTION_COLUMNS).where("company_id", "=", companyId).where("ticket_id", "=", ticketId).where("id", "=", id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toPrediction(row) : undefined;
}

export async function decidePrediction(db: Db, id: string, state: "applied" | "dismissed", userId: string): Promise<void> {
  await db.updateTable("triage_predictions").set({ state, decided_at: sql<Date>`now()`, decided_by: userId }).where("id", "=", id).execute();
}

/** The company's predictions since `since` with their ticket's state now, for the online precision. */
export async function listPredictionOutcomes(db: Db, companyId: string, since: Date): Promise<(Prediction & { ticketClosed: boolean; tags: string[]; fields: FieldValues })[]> {
  const rows = await db
    .selectFrom("triage_predictions as p")
    .innerJoin("tickets as t", (join) => join.onRef("t.id", "=", "p.ticket_id").onRef("t.company_id", "=", "p.company_id"))
    .select(["p.id", "p.ticket_id", "p.kind", "p.name", "p.value", "p.confidence", "p.decision", "p.state", "p.created_at", "t.status", "t.tags", "t.fields"])
    .where("p.company_id", "=", companyId)
    .where("p.created_at", ">=", since)
    .execute();
  return rows.map((row) => ({ ...toPrediction(row), ticketClosed: row.status === "closed", tags: row.tags, fields: row.fields }));
}
