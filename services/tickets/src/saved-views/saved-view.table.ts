import type { Generated } from "kysely";

export interface SavedViewTable {
  id: Generated<string>;
  company_id: string;
  user_id: string;
  name: string;
  q: string;
  view: string | null;
  created_at: Generated<Date>;
}

export interface SavedViewTables {
  saved_views: SavedViewTable;
}
