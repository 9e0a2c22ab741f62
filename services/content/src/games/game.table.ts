import type { ColumnType, Generated } from "kysely";
import type { LocalizationMap } from "../announcements/announcement.ts";
import type { Jwks } from "./game.ts";

export interface GameTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  slug: string;
  languages: string[];
  /** Written as JSON text, read back as an object. */
  metadata_jwks: ColumnType<Jwks | null, string | null, string | null>;
  block_unverified_players: boolean;
  /** Whether routing assigns the game's tickets to agents (default off). */
  routing_enabled: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Soft delete: a deleted game is "game not found" everywhere. */
  deleted_at: Date | null;
}

export interface GameEnvironmentTable {
  id: Generated<string>;
  company_id: string;
  game_id: string;
  name: string;
  token: Generated<string>;
  /** The token before the last rotation, still accepted until previous_token_expires_at. */
  previous_token: string | null;
  previous_token_expires_at: Date | null;
  token_rotated_at: Date | null;
  created_at: Generated<Date>;
}

export interface GameResourceTable {
  id: Generated<string>;
  company_id: string;
  game_id: string;
  key: string;
  title: string;
  /** Localization maps, written as JSON text, read back as objects. */
  title_localized: ColumnType<LocalizationMap, string | undefined, string>;
  body: ColumnType<LocalizationMap, string | undefined, string>;
  /** The section's name per language; `{}`: no section. */
  section: ColumnType<LocalizationMap, string | undefined, string>;
  /** Orders a game's articles (then the key). */
  position: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** A game's branding of the web support page (games/branding.ts); no row: the defaults. */
export interface GameBrandingTable {
  game_id: string;
  company_id: string;
  accent_color: string | null;
  color_scheme: string;
  logo: Buffer | null;
  logo_sha256: string | null;
  logo_content_type: string | null;
  logo_width: number | null;
  logo_height: number | null;
  updated_at: Generated<Date>;
}

/** One article in one language, for full-text search (kept by a trigger on game_resources). */
export interface GameResourceSearchTable {
  resource_id: string;
  company_id: string;
  game_id: string;
  language: string;
  config: string;
  title: string;
  /** The Markdown body in that language. */
  body: string;
  document: Generated<string>;
}

/** A web support session's "was this helpful?" vote on an article (its latest). */
export interface GameResourceFeedbackTable {
  resource_id: string;
  company_id: string;
  session_id: string;
  /** The language the article was shown in. */
  language: string;
  helpful: boolean;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface GameTables {
  games: GameTable;
  game_resource_search: GameResourceSearchTable;
  game_resource_feedback: GameResourceFeedbackTable;
  game_brandings: GameBrandingTable;
  game_environments: GameEnvironmentTable;
  game_resources: GameResourceTable;
}
