import type { Generated } from "kysely";

export interface UserCredentialTable {
  user_id: string;
  company_id: string;
  /** argon2id, PHC string format. */
  password_hash: string;
  updated_at: Generated<Date>;
}

export interface AgentSessionTable {
  id: Generated<string>;
  /** SHA-256 (hex) of the cookie's token; the token itself is never stored. */
  token_hash: string;
  csrf_token: string;
  user_id: string;
  company_id: string;
  client_address: string | null;
  user_agent: string | null;
  created_at: Generated<Date>;
  last_seen_at: Generated<Date>;
  idle_expires_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  ended_reason: string | null;
  /** "full", or "two_factor_enrolment": a user whose company requires two-factor may only enrol. */
  scope: Generated<string>;
}

export interface SignInFailureTable {
  key: string;
  failures: number;
  window_started_at: Date;
  locked_until: Date | null;
}

export interface UserLinkTable {
  id: Generated<string>;
  purpose: "invitation" | "password_reset";
  /** SHA-256 (hex) of the link's token; the token itself is never stored. */
  token_hash: string;
  user_id: string;
  company_id: string;
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: Date | null;
}

export interface AgentAccessTables {
  user_links: UserLinkTable;
  user_credentials: UserCredentialTable;
  agent_sessions: AgentSessionTable;
  sign_in_failures: SignInFailureTable;
}
