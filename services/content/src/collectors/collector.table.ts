import type { ColumnType, Generated } from "kysely";
import type { CollectorFieldDefinition } from "./collector.ts";

export interface CollectorTable {
  id: Generated<string>;
  company_id: string;
  game_id: string;
  ref: string;
  title: string;
  contact_form: boolean;
  /** Written as JSON text, read back as an array. */
  fields: ColumnType<CollectorFieldDefinition[], string, string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Set when an admin retired it: no longer listed, shown or answered. */
  retired_at: Generated<Date | null>;
}

export interface CollectorTables {
  collectors: CollectorTable;
}
