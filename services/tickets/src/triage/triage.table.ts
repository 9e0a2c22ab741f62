import type { ColumnType, Generated } from "kysely";

/** jsonb: read as a parsed value, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface TriageModelTable {
  company_id: string;
  format: number;
  trained_at: Date;
  /** Labelled tickets it learned from. */
  tickets: number;
  schema: Json<unknown>;
  model: Json<unknown>;
}

export interface TriageSettingsTable {
  company_id: string;
  threshold: number;
  updated_at: Generated<Date>;
}

export interface TriageRunTable {
  ticket_id: string;
  company_id: string;
  classified_at: Generated<Date>;
  model_trained_at: Date | null;
}

export interface TriagePredictionTable {
  id: Generated<string>;
  company_id: string;
  ticket_id: string;
  kind: "tag" | "field";
  name: string;
  value: string;
  confidence: number;
  decision: "set" | "suggest";
  /** set: applied by the triage; pending: a suggestion not acted on; applied / dismissed by an agent. */
  state: "set" | "pending" | "applied" | "dismissed";
  model: string | null;
  created_at: Generated<Date>;
  decided_at: Date | null;
  decided_by: string | null;
}

export interface TriageTables {
  triage_models: TriageModelTable;
  triage_settings: TriageSettingsTable;
  triage_runs: TriageRunTable;
  triage_predictions: TriagePredictionTable;
}
