// When the player last looked at each conversation on the web support page: one row per ticket
// (every session of the player reads the same conversation). An agent message after that time is
// unread for the player.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("player_ticket_reads")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey().references("tickets.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("read_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("player_ticket_reads").execute();
}
