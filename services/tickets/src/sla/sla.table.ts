import type { ColumnType, Generated } from "kysely";
import type { SlaCalendar } from "./calendar.ts";
import type { SlaPolicy } from "./sla.ts";

/** jsonb: read as a parsed value, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

/** One row per company with SLA settings. */
export interface SlaSettingsTable {
  company_id: string;
  calendar: Json<SlaCalendar | null> | null;
  policies: Json<SlaPolicy[]>;
  updated_at: Generated<Date>;
}

/** A warning or breach announced once. */
export interface SlaNoticeTable {
  ticket_id: string;
  company_id: string;
  metric: string;
  cycle: string;
  kind: "warning" | "breach";
  policy_id: string;
  due_at: Date;
  created_at: Generated<Date>;
}

export interface SlaTables {
  sla_settings: SlaSettingsTable;
  sla_notices: SlaNoticeTable;
}
