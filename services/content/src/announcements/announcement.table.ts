import type { ColumnType, Generated } from "kysely";
import type { LocalizationMap } from "./announcement.ts";

/**
 * One row per configured announcement. The scope follows from which ids are set (shared: none,
 * game: game_id, environment: both); a unique index over (company_id, game_id, environment_id)
 * with NULLS NOT DISTINCT keeps one announcement per scope.
 */
export interface AnnouncementTable {
  id: Generated<string>;
  company_id: string;
  scope: "shared" | "game" | "environment";
  game_id: string | null;
  environment_id: string | null;
  short_content: ColumnType<LocalizationMap, string, string>;
  long_content: ColumnType<LocalizationMap, string, string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AnnouncementTables {
  announcements: AnnouncementTable;
}
