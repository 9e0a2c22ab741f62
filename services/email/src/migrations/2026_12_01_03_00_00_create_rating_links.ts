// The links of the satisfaction surveys mailed to players: a token per resolved ticket, kept
// only as its SHA-256 (the link is the credential to rate the ticket).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("rating_links")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("ticket_id", "uuid", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("game_name", "text", (c) => c.notNull())
    .addColumn("running_id", "bigint", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("rated_at", "timestamptz")
    .addColumn("score", "integer")
    .execute();
  await db.schema.createIndex("rating_links_ticket_idx").on("rating_links").columns(["company_id", "ticket_id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("rating_links").execute();
}
