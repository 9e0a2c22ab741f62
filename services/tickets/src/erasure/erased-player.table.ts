import type { Generated } from "kysely";

/** A service player whose tickets were erased: no new ticket of theirs is accepted. */
export interface ErasedPlayerTable {
  service_player_id: string;
  company_id: string;
  erased_at: Generated<Date>;
}

export interface ErasedPlayerTables {
  erased_players: ErasedPlayerTable;
}
