import type { Generated } from "kysely";

export interface TagTable {
  id: Generated<string>;
  company_id: string;
  /** null: a company-wide tag. */
  game_id: string | null;
  name: string;
  description: string | null;
  is_ai_tag: boolean;
  is_skill: boolean;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** When it was retired; null: live. */
  retired_at: Generated<Date | null>;
}

export interface TagTables {
  tags: TagTable;
}
