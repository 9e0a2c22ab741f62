// Rules' callWebhook actions (docs/automation.md): each company's calls go through one hidden
// subscription of source 'rules' (its signing secret is the company's rule signing secret; it
// subscribes to no event type), and each of its deliveries names its own URL.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table webhooks drop constraint webhooks_source_check`.execute(db);
  await sql`alter table webhooks add constraint webhooks_source_check check (source in ('api', 'tenant_file', 'rules'))`.execute(db);
  await db.schema.createIndex("webhooks_rules_company_key").on("webhooks").column("company_id").unique().where(sql.ref("source"), "=", "rules").execute();
  await db.schema.alterTable("deliveries").addColumn("url", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("deliveries").dropColumn("url").execute();
  await db.schema.dropIndex("webhooks_rules_company_key").execute();
  await sql`delete from webhooks where source = 'rules'`.execute(db);
  await sql`alter table webhooks drop constraint webhooks_source_check`.execute(db);
  await sql`alter table webhooks add constraint webhooks_source_check check (source in ('api', 'tenant_file'))`.execute(db);
}
