/** The code waiting to be entered for a session's email (only its hash); one per session. */
export interface EmailVerificationTable {
  session_id: string;
  /** The address the code was sent to: a code proves only that address. */
  email_normalized: string;
  code_hash: string;
  expires_at: Date;
  /** Wrong entries of the current code. */
  attempts: number;
  /** Codes sent for the session in all. */
  sends: number;
  last_sent_at: Date;
}

export interface EmailVerificationTables {
  email_verifications: EmailVerificationTable;
}
