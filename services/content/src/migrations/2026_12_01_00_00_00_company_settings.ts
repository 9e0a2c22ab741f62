// The company settings of the support application. The audit log names the object a change
// was made to and keeps its settings before and after; an API key records who created it and,
// to the minute, when it was last used. Columns are only added: a service of the previous
// release keeps working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("audit_log")
    .addColumn("target_type", "text")
    .addColumn("target_id", "text")
    .addColumn("before", "jsonb")
    .addColumn("after", "jsonb")
    .execute();
  await db.schema.createIndex("audit_log_by_company_action").on("audit_log").columns(["company_id", "action", "id"]).execute();
  await db.schema.alterTable("api_keys").addColumn("created_by", "jsonb").addColumn("last_used_at", "timestamptz").execute();
  // Keys created before this release were created by operators (tenant files, `pnpm admin`).
  await sql`update api_keys set created_by = '{"type":"operator","id":null}'::jsonb where created_by is null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("last_used_at").dropColumn("created_by").execute();
  await db.schema.dropIndex("audit_log_by_company_action").execute();
  await db.schema.alterTable("audit_log").dropColumn("after").dropColumn("before").dropColumn("target_id").dropColumn("target_type").execute();
}
