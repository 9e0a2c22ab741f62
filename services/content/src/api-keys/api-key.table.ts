import type { Generated, JSONColumnType } from "kysely";

export interface ApiKeyTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  key_prefix: string;
  /** Hex SHA-256 of the secret; the secret itself is never stored. */
  key_hash: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
  /** Null: the company's limit. */
  rate_limit_per_minute: Generated<number | null>;
  /** Who created it ({type: "user", id} or {type: "operator", id: null}). */
  created_by: JSONColumnType<{ type: string; id: string | null } | null, string | null, string | null>;
  /** The last request it authenticated, to the minute (the gateways report use once a minute). */
  last_used_at: Date | null;
}

export interface ApiKeyTables {
  api_keys: ApiKeyTable;
}
