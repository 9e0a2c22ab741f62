import type { ColumnType, Generated } from "kysely";

/** jsonb: read as a parsed value, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface RuleTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  enabled: boolean;
  /** 1-based order within the company. */
  position: number;
  /** The trigger's type, for the consumer's lookup. */
  trigger_type: string;
  trigger: Json<unknown>;
  conditions: Json<unknown[]>;
  actions: Json<unknown[]>;
  /** "console" (the settings) or "tenant_file" (the admin tool's file, which owns only these). */
  source: Generated<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface RuleRunTable {
  id: Generated<string>;
  company_id: string;
  rule_id: string;
  rule_name: string;
  ticket_id: string;
  trigger: string;
  event_id: string;
  outcome: string;
  depth: number;
  actions: Json<unknown[]>;
  error: string | null;
  created_at: Generated<Date>;
}

export interface RuleTables {
  rules: RuleTable;
  rule_runs: RuleRunTable;
}
