import type { Generated } from "kysely";

export interface RatingLinkTable {
  /** SHA-256 (hex) of the link's token: the token itself is only in the mail. */
  token_hash: string;
  company_id: string;
  ticket_id: string;
  /** What the page shows, as the mail did: the ticket's language, game and number. */
  language: string;
  game_name: string;
  running_id: string;
  created_at: Generated<Date>;
  rated_at: Date | null;
  score: number | null;
}

export interface RatingTables {
  rating_links: RatingLinkTable;
}
