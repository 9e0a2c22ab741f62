// A game's branding of the web support page (accent colour, colour scheme, logo). A table of its
// own so that reading a game never reads a logo's bytes; a game without a row has the defaults.
// Only a table is added: a service of the previous release keeps working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("game_brandings")
    .addColumn("game_id", "uuid", (column) => column.primaryKey().references("games.id"))
    .addColumn("company_id", "uuid", (column) => column.notNull())
    .addColumn("accent_color", "text")
    .addColumn("color_scheme", "text", (column) => column.notNull().defaultTo("light"))
    .addColumn("logo", "bytea")
    .addColumn("logo_sha256", "text")
    .addColumn("logo_content_type", "text")
    .addColumn("logo_width", "integer")
    .addColumn("logo_height", "integer")
    .addColumn("updated_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("game_brandings_color_scheme_check", sql`color_scheme in ('light', 'dark', 'system')`)
    .addCheckConstraint("game_brandings_logo_size_check", sql`logo is null or octet_length(logo) <= 262144`)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("game_brandings").execute();
}
