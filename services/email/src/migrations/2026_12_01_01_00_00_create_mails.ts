// Mail threads and the mails sent to players. Partial index: the sender's due mails.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("ticket_threads")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("reply_token", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("mails")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("ticket_id", "uuid", (c) => c.notNull())
    .addColumn("event_id", "uuid")
    .addColumn("source_event_id", "uuid", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('agent_reply', 'csat_request')`))
    .addColumn("to_address", "text", (c) => c.notNull())
    .addColumn("from_name", "text", (c) => c.notNull())
    .addColumn("reply_to", "text")
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("text_body", "text", (c) => c.notNull())
    .addColumn("html_body", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull().unique())
    .addColumn("references", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("headers", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('queued', 'sent', 'deferred', 'bounced', 'failed')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz")
    .addColumn("locked_until", "timestamptz")
    .addColumn("last_attempt_at", "timestamptz")
    .addColumn("last_error", "text")
    .addColumn("sent_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("mails_ticket_idx").on("mails").columns(["company_id", "ticket_id", "created_at"]).execute();
  await db.schema
    .createIndex("mails_due_idx")
    .on("mails")
    .column("next_attempt_at")
    .where(sql.ref("status"), "in", ["queued", "deferred"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("mails").execute();
  await db.schema.dropTable("ticket_threads").execute();
}
