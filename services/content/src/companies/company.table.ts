import type { Generated } from "kysely";

export interface CompanyTable {
  id: Generated<string>;
  name: string;
  primary_language: string;
  allow_immediate_deletion: boolean;
  auto_close_waiting_after_hours: number;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CompanyTables {
  companies: CompanyTable;
}
