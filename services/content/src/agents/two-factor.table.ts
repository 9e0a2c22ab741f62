import type { Generated } from "kysely";

export interface UserTwoFactorTable {
  user_id: string;
  company_id: string;
  /** The TOTP secret sealed with TOTP_ENCRYPTION_KEY (two-factor-secret-box.ts); never in clear. */
  secret_sealed: string;
  /** Null while the enrolment awaits its confirming code. */
  enabled_at: Date | null;
  /** The last time step accepted; bigint comes back as a string. */
  last_used_step: string | number | null;
  created_at: Generated<Date>;
}

export interface UserRecoveryCodeTable {
  id: Generated<string>;
  user_id: string;
  /** SHA-256 of the user id and the normalised code; the code itself is shown once. */
  code_hash: string;
  used_at: Date | null;
  created_at: Generated<Date>;
}

export interface TwoFactorChallengeTable {
  id: Generated<string>;
  /** SHA-256 of the challenge token the gateway keeps in a short-lived cookie. */
  token_hash: string;
  user_id: string;
  company_id: string;
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: Date | null;
}

export interface TwoFactorTables {
  user_two_factor: UserTwoFactorTable;
  user_recovery_codes: UserRecoveryCodeTable;
  two_factor_challenges: TwoFactorChallengeTable;
}
