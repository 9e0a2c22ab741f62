// The players table. A player is identified per game by its external id, or (without one) by
// its normalised email: two partial unique indexes, which ResolvePlayer and BlockPlayer use as
// `on conflict` targets so that concurrent first contacts of one player create one row.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("players")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("external_id", "text")
    .addColumn("email", "text")
    .addColumn("email_normalized", "text")
    .addColumn("name", "text")
    .addColumn("tier", "integer", (c) => c.check(sql`tier between 1 and 3`))
    .addColumn("blocked", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("players_identity_check", sql`external_id is not null or email_normalized is not null`)
    .addCheckConstraint("players_email_normalized_check", sql`(email is null) = (email_normalized is null)`)
    .execute();
  await db.schema
    .createIndex("players_game_id_external_id_key")
    .on("players")
    .columns(["game_id", "external_id"])
    .unique()
    .where(sql.ref("external_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("players_game_id_email_normalized_key")
    .on("players")
    .columns(["game_id", "email_normalized"])
    .unique()
    .where(sql.ref("external_id"), "is", null)
    .where(sql.ref("email_normalized"), "is not", null)
    .execute();
  await db.schema.createIndex("players_company_id_idx").on("players").column("company_id").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("players").execute();
}
