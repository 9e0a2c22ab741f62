import type { ColumnType, Generated } from "kysely";

export interface CannedResponseTable {
  id: Generated<string>;
  company_id: string;
  /** null: company-wide. */
  game_id: string | null;
  name: string;
  texts: ColumnType<Record<string, string>, string, string>;
  actions: ColumnType<{ addTags: string[]; status: "waiting" | "on_hold" | null; resolve: boolean }, string, string>;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Set when an admin retires it: no longer offered, kept for the audit log's references. */
  retired_at: Date | null;
}

export interface CannedResponseTables {
  canned_responses: CannedResponseTable;
}
