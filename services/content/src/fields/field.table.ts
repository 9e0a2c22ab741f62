import type { Generated } from "kysely";

export interface FieldDefinitionTable {
  id: Generated<string>;
  company_id: string;
  /** null: a company-wide field. */
  game_id: string | null;
  key: string;
  name: string;
  type: string;
  description: string | null;
  is_ai_field: boolean;
  /** Dropdown options, in order; empty for other types. */
  options: string[];
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** When it was retired; null: live. */
  retired_at: Generated<Date | null>;
}

export interface FieldTables {
  field_definitions: FieldDefinitionTable;
}
