import type { Generated } from "kysely";

export interface PlayerTable {
  id: Generated<string>;
  company_id: string;
  game_id: string;
  /** The game's own player id; null for email/web players. */
  external_id: string | null;
  /** As the player gave it (trimmed), for display. */
  email: string | null;
  /** Trimmed and lower-cased: what email players are matched by. Null exactly when email is. */
  email_normalized: string | null;
  name: string | null;
  tier: number | null;
  blocked: boolean;
  /** When the player was blocked (to the millisecond); null while it is not. */
  blocked_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface PlayerTables {
  players: PlayerTable;
}
