// What each user of the support application has read: one row per user and ticket, the last
// time they looked at it. A ticket with a player message after that time is unread for them.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("ticket_reads")
    .addColumn("user_id", "uuid", (c) => c.notNull())
    .addColumn("ticket_id", "uuid", (c) => c.notNull().references("tickets.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("read_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("ticket_reads_pkey", ["user_id", "ticket_id"])
    .execute();
  await sql`create index ticket_reads_ticket_idx on ticket_reads (ticket_id)`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("ticket_reads").execute();
}
