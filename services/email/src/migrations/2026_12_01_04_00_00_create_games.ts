// The games as the email channel needs them, kept from content's events: which company a game's
// support address belongs to, its languages, whether it refuses unverified players, and an
// environment token for the link that continues a conversation on the web support page.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("games")
    .addColumn("game_id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("languages", sql`text[]`, (c) => c.notNull())
    .addColumn("block_unverified_players", "boolean", (c) => c.notNull())
    .addColumn("deleted", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createTable("game_environments")
    .addColumn("environment_id", "uuid", (c) => c.primaryKey())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("token", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("game_environments_game_idx").on("game_environments").columns(["game_id", "created_at"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("game_environments").execute();
  await db.schema.dropTable("games").execute();
}
