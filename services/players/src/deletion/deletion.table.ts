import type { ColumnType, Generated } from "kysely";
import type { ErasureSteps } from "./deletion.ts";

export interface DeletionScheduleTable {
  id: Generated<string>;
  player_id: string;
  company_id: string;
  game_id: string;
  requested_by_type: "api_key" | "operator" | "user";
  requested_by_id: string | null;
  created_at: Generated<Date>;
  due_at: Date;
}

export interface ErasureTable {
  id: Generated<string>;
  company_id: string;
  player_id: string;
  game_id: string;
  trigger: "scheduled" | "immediate";
  requested_by_type: "api_key" | "operator" | "user";
  requested_by_id: string | null;
  requested_at: Date;
  started_at: Generated<Date>;
  completed_at: Date | null;
  steps: ColumnType<ErasureSteps, string | undefined, string>;
  attempts: Generated<number>;
  last_error: string | null;
}

export interface DeletionTables {
  deletion_schedules: DeletionScheduleTable;
  erasures: ErasureTable;
}
