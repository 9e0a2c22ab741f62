import type { Generated } from "kysely";

export interface CompanySingleSignOnTable {
  company_id: string;
  /** The OpenID provider's issuer identifier (its discovery document is under it). */
  issuer: string;
  client_id: string;
  /** The key of the Secret content-sso (a file of SSO_CLIENTS_DIR) holding the client secret; never the secret. */
  client_secret_key: string;
  allow_just_in_time_users: Generated<boolean>;
  /** Lower-case domains the email claim must be of; empty: any. */
  email_domains: Generated<string[]>;
  created_at: Generated<Date>;
}

export interface SingleSignOnAttemptTable {
  id: Generated<string>;
  /** SHA-256 (hex) of the token in the browser's cookie. */
  token_hash: string;
  company_id: string;
  state: string;
  nonce: string;
  /** The PKCE verifier: lives ten minutes and is used once. */
  code_verifier: string;
  redirect_uri: string;
  return_to: string;
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: Date | null;
}

export interface SingleSignOnTables {
  company_single_sign_on: CompanySingleSignOnTable;
  single_sign_on_attempts: SingleSignOnAttemptTable;
}
