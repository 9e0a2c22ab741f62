// The mails players send to the support addresses: accepted (a message of a ticket), held for an
// agent (a sender who is not the ticket's player) or dropped (automatic mail, a loop, an unknown
// ticket). Indexes: the rate limits per sender and per ticket, and the idempotency of a
// redelivered mail (its Message-ID).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("inbound_mails")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid")
    .addColumn("ticket_id", "uuid")
    .addColumn("message_id", "text")
    .addColumn("from_address", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('accepted', 'held', 'dropped')`))
    .addColumn("reason", "text")
    .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("text_body", "text")
    .addColumn("event_id", "uuid")
    .addColumn("received_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("inbound_mails_message_id_key").on("inbound_mails").column("message_id").unique().where(sql.ref("message_id"), "is not", null).execute();
  await db.schema.createIndex("inbound_mails_sender_idx").on("inbound_mails").columns(["from_address", "received_at"]).execute();
  await db.schema.createIndex("inbound_mails_ticket_idx").on("inbound_mails").columns(["ticket_id", "received_at"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("inbound_mails").execute();
}
