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
