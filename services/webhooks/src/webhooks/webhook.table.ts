import type { Generated } from "kysely";

export interface WebhookTable {
  id: string;
  company_id: string;
  url: string;
  description: string;
  event_types: string[];
  game_ids: string[];
  enabled: boolean;
  disabled_reason: string | null;
  /** "api" or "tenant_file". */
  source: string;
  /** The signing secret, sealed with AES-256-GCM (security/secret-box.ts). */
  secret_sealed: string;
  /** The secret before the last rotation, sealed, while it still signs. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WebhookTables {
  webhooks: WebhookTable;
}
