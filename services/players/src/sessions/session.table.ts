import type { ColumnType, Generated } from "kysely";
import type { SessionMetadata, Verification } from "./session.ts";

export interface SupportSessionTable {
  id: Generated<string>;
  /** SHA-256 (hex) of the session code; the code itself is never stored. */
  code_hash: string;
  company_id: string;
  game_id: string;
  environment_id: string;
  language: string | null;
  resource: string | null;
  metadata: ColumnType<SessionMetadata, string, string>;
  verification: Verification;
  /** The player's external id and normalised email, so that a player's sessions can be erased. */
  player_external_id: string | null;
  player_email_normalized: string | null;
  /** When the player proved the email with a code; null until then. */
  email_verified_at: Date | null;
  created_at: Generated<Date>;
  expires_at: Date;
}

export interface SupportSessionTables {
  support_sessions: SupportSessionTable;
}
