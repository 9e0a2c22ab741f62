// Resources get content (a localized title and a Markdown body), and games get collector
// definitions (the forms whose answers tickets stores as COLLECTOR_RESULT events).
// Columns are only added: a service of the previous release keeps working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // `title` stays the plain title (the primary language's text); the maps localize it.
  await db.schema
    .alterTable("game_resources")
    .addColumn("title_localized", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("body", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();

  await db.schema
    .createTable("collectors")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("ref", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("contact_form", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("fields", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addForeignKeyConstraint("collectors_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .execute();
  await db.schema.createIndex("collectors_game_id_ref_key").on("collectors").columns(["game_id", "ref"]).unique().execute();
  // At most one contact form per game: the web support page shows exactly one.
  await db.schema
    .createIndex("collectors_game_id_contact_form_key")
    .on("collectors")
    .column("game_id")
    .unique()
    .where(sql.ref("contact_form"), "=", true)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("collectors").execute();
  await db.schema.alterTable("game_resources").dropColumn("title_localized").dropColumn("body").execute();
}
