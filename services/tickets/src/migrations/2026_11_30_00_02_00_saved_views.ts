// Saved views (saved-views/): a user's own named lists, a search and optionally a built-in view.
// A name is unique among one user's views.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("saved_views")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("user_id", "uuid", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("q", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("view", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index saved_views_user_name_key on saved_views (user_id, lower(name))`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("saved_views").execute();
}
