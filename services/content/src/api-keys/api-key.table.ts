import type { Generated } from "kysely";

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
}

export interface ApiKeyTables {
  api_keys: ApiKeyTable;
}
