import type { Generated } from "kysely";

export interface TicketBreadcrumbTable {
  seq: Generated<number>;
  ticket_id: string;
  company_id: string;
  message: string;
  client_occurred_at: Date;
  created_at: Generated<Date>;
}

export interface TicketBreadcrumbTables {
  ticket_breadcrumbs: TicketBreadcrumbTable;
}
