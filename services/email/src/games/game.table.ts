import type { Generated } from "kysely";

export interface GameTable {
  game_id: string;
  company_id: string;
  name: string;
  languages: string[];
  block_unverified_players: boolean;
  deleted: Generated<boolean>;
}

export interface GameEnvironmentTable {
  environment_id: string;
  game_id: string;
  token: string;
  created_at: Generated<Date>;
}

export interface GameTables {
  games: GameTable;
  game_environments: GameEnvironmentTable;
}
