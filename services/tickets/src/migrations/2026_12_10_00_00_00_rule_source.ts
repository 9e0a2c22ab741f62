// Where a rule came from: "console" (Settings → Rules, the agent API) or "tenant_file" (`pnpm
// admin apply`). A tenant file owns only its own rules: it matches them by name (unique among a
// company's file rules), deletes those it no longer lists, and never touches the console's.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("rules").addColumn("source", "text", (c) => c.notNull().defaultTo("console")).execute();
  await sql`create unique index rules_company_file_name on rules (company_id, name) where source = 'tenant_file'`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("rules_company_file_name").execute();
  await db.schema.alterTable("rules").dropColumn("source").execute();
}
