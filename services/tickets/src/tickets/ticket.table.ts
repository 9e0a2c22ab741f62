import type { ColumnType, Generated } from "kysely";
import type { FieldValues } from "./ticket.ts";

/** jsonb: read as a parsed value, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface TicketTable {
  id: Generated<string>;
  company_id: string;
  running_id: number;
  game_id: string;
  game_environment_id: string;
  service_player_id: string | null;
  player_external_id: string | null;
  player_name: string | null;
  email: string | null;
  status: string;
  support_source: string | null;
  channels: string[];
  language: string;
  platform: string;
  metadata: Json<FieldValues>;
  tags: string[];
  fields: Json<FieldValues>;
  assignee_id: string | null;
  resolution_type: string | null;
  csat_score: number | null;
  csat_review: string | null;
  issue_summary: string | null;
  issue_resolution: string | null;
  follow_up_ticket_id: string | null;
  reopened_from_ticket_id: string | null;
  first_message: string;
  first_message_normalized: string;
  waiting_since: Date | null;
  last_player_message_at: Date | null;
  client_clock_offset_ms: number | null;
  created_at: Date;
  last_activity_at: Date | null;
  /** When the ticket was closed; null while it is open. */
  closed_at: Date | null;
  /** The agent who put the ticket back in routing's queue; routing passes over them for it while someone else can take it. */
  routing_excluded_user_id: Generated<string | null>;
  /** When the ticket's open SLA clock due soonest is due, as the SLA sweep last computed it; null: none. */
  sla_due_at: Generated<Date | null>;
  updated_at: Generated<Date>;
}

/** One row per company: the last running id handed out and the last creation time. */
export interface TicketCounterTable {
  company_id: string;
  last_running_id: number;
  last_created_at: Date;
}

export interface TicketTables {
  tickets: TicketTable;
  ticket_counters: TicketCounterTable;
}
