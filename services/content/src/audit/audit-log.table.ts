import type { Generated, JSONColumnType } from "kysely";

export interface AuditLogTable {
  id: Generated<string>;
  company_id: string | null;
  user_id: string | null;
  action: string;
  actor: JSONColumnType<{ type: string; id: string | null }>;
  detail: JSONColumnType<Record<string, unknown>>;
  client_address: string | null;
  /** What was changed ("api_key", "user", ...) and its id; null for sign-in events about no object. */
  target_type: string | null;
  target_id: string | null;
  /** The changed object's settings before and after the change (never a secret); null where there is no side. */
  before: JSONColumnType<Record<string, unknown> | null, string | null, string | null>;
  after: JSONColumnType<Record<string, unknown> | null, string | null, string | null>;
  created_at: Generated<Date>;
  /** The event of another service the entry came from (webhooks.audit.recorded); null for content's own. */
  source_event_id: string | null;
}

export interface AuditLogTables {
  audit_log: AuditLogTable;
}
