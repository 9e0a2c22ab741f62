import type { Generated } from "kysely";

/** A company's outbreak settings; no row: the defaults. */
export interface OutbreakSettingsTable {
  company_id: string;
  enabled: boolean;
  min_tickets: number;
  window_minutes: number;
  similarity: number;
  updated_at: Generated<Date>;
}

export interface IncidentTable {
  id: string;
  company_id: string;
  game_id: string;
  title: string;
  status: "open" | "closed";
  /** The centroid of the tickets that opened it (outbreaks.ts encodeVector). */
  vector: Buffer;
  opened_at: Date;
  closed_at: Date | null;
  closed_by_user_id: string | null;
}

export interface IncidentTicketTable {
  ticket_id: string;
  incident_id: string;
  linked_at: Date;
}

/** A recent ticket's text vector, kept for the window. */
export interface OutbreakVectorTable {
  ticket_id: string;
  company_id: string;
  game_id: string;
  created_at: Date;
  vector: Buffer;
  incident_id: string | null;
}

export interface OutbreakTables {
  outbreak_settings: OutbreakSettingsTable;
  incidents: IncidentTable;
  incident_tickets: IncidentTicketTable;
  outbreak_vectors: OutbreakVectorTable;
}
