import type { ColumnType, Generated } from "kysely";
import type { Actor } from "../tickets/ticket.ts";

export interface TicketEventTable {
  seq: Generated<number>;
  id: Generated<string>;
  ticket_id: string;
  company_id: string;
  /** The running id of the ticket (search reads events by blocks of running ids); null only until the migration's triggers fill it. */
  ticket_running_id: number | null;
  type: string;
  data: ColumnType<Record<string, unknown>, string, string>;
  actor: ColumnType<Actor, string, string>;
  created_at: Generated<Date>;
}

export interface TicketEventTables {
  ticket_events: TicketEventTable;
}
