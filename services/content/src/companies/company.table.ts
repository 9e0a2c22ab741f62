import type { Generated } from "kysely";

export interface CompanyTable {
  id: Generated<string>;
  name: string;
  primary_language: string;
  allow_immediate_deletion: boolean;
  auto_close_waiting_after_hours: number;
  /** Null: the gateway's default (API_RATE_LIMIT_PER_MINUTE). */
  api_rate_limit_per_minute: Generated<number | null>;
  /** Every user must sign in with two-factor (docs/agents.md, "Two-factor"). */
  require_two_factor: Generated<boolean>;
  /** The From of its mails to players (docs/email.md); null: the email service's default. */
  email_sender_name: Generated<string | null>;
  email_sender_address: Generated<string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CompanyTables {
  companies: CompanyTable;
}
