// The tickets each web support session opened: a session always sees the tickets it opened
// itself, whether or not its player is verified. The row goes with its ticket (erasure).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("session_tickets")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey().references("tickets.id").onDelete("cascade"))
    .addColumn("session_id", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("session_tickets_session_idx").on("session_tickets").column("session_id").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("session_tickets").execute();
}
