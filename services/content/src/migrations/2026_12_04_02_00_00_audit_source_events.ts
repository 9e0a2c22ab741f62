// Audit entries handed over by other services (webhooks.audit.recorded): the id of the event an
// entry came from, unique, so that a redelivered event records nothing more. Null for content's
// own entries (NULLs are distinct). Only a column is added: a service of the previous release
// keeps working on this schema.
import type { Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("audit_log").addColumn("source_event_id", "uuid").execute();
  await db.schema.alterTable("audit_log").addUniqueConstraint("audit_log_source_event_id_key", ["source_event_id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("audit_log").dropColumn("source_event_id").execute();
}
