import type { Generated } from "kysely";

/** A ticket opened through a web support session: that session sees it, verified or not. */
export interface SessionTicketTable {
  ticket_id: string;
  session_id: string;
  created_at: Generated<Date>;
}

export interface SessionTicketTables {
  session_tickets: SessionTicketTable;
}

/** When the player last looked at a conversation on the web support page (one row per ticket). */
export interface PlayerTicketReadTable {
  ticket_id: string;
  company_id: string;
  read_at: Generated<Date>;
}

export interface PlayerTicketReadTables {
  player_ticket_reads: PlayerTicketReadTable;
}
