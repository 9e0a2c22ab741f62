import type { Generated } from "kysely";

/** When a user of the support application last looked at a ticket. */
export interface TicketReadTable {
  user_id: string;
  ticket_id: string;
  company_id: string;
  read_at: Generated<Date>;
}

export interface TicketReadTables {
  ticket_reads: TicketReadTable;
}
