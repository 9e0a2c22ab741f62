// Subscriptions, their delivery log and the ticket-to-player index used by erasure. Partial
// indexes serve the delivery engine: due pending rows, the head of each (webhook, key) chain,
// and the attempts in flight per webhook.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("event_types", sql`text[]`, (c) => c.notNull())
    .addColumn("game_ids", sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("enabled", "boolean", (c) => c.notNull())
    .addColumn("disabled_reason", "text")
    .addColumn("source", "text", (c) => c.notNull().check(sql`source in ('api', 'tenant_file')`))
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("previous_secret_sealed", "text")
    .addColumn("previous_secret_expires_at", "timestamptz")
    .addColumn("failing_since", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("webhooks_company_idx").on("webhooks").columns(["company_id", "created_at"]).execute();
  // A tenant file names its subscriptions by URL.
  await db.schema
    .createIndex("webhooks_tenant_file_url_key")
    .on("webhooks")
    .columns(["company_id", "url"])
    .unique()
    .where(sql.ref("source"), "=", "tenant_file")
    .execute();

  await db.schema
    .createTable("deliveries")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("webhook_id", "uuid", (c) => c.notNull().references("webhooks.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("seq", "bigserial", (c) => c.notNull().unique())
    .addColumn("event_id", "uuid")
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("ordering_key", "text", (c) => c.notNull())
    .addColumn("ticket_id", "uuid")
    .addColumn("player_id", "uuid")
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz")
    .addColumn("locked_until", "timestamptz")
    .addColumn("last_attempt_at", "timestamptz")
    .addColumn("last_response_status", "integer")
    .addColumn("last_response_body", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    // A domain event delivered twice by NATS never makes a second delivery; one domain event
    // may make several public ones (ticket.closed and ticket.resolved), hence the type.
    .addUniqueConstraint("deliveries_webhook_event_key", ["webhook_id", "event_id", "event_type"])
    .execute();
  await db.schema.createIndex("deliveries_log_idx").on("deliveries").columns(["webhook_id", "seq"]).execute();
  await db.schema
    .createIndex("deliveries_due_idx")
    .on("deliveries")
    .columns(["next_attempt_at", "seq"])
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("deliveries_chain_idx")
    .on("deliveries")
    .columns(["webhook_id", "ordering_key", "seq"])
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema.createIndex("deliveries_ticket_idx").on("deliveries").columns(["company_id", "ticket_id"]).where(sql.ref("ticket_id"), "is not", null).execute();
  await db.schema.createIndex("deliveries_player_idx").on("deliveries").columns(["company_id", "player_id"]).where(sql.ref("player_id"), "is not", null).execute();

  await db.schema
    .createTable("ticket_players")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("player_id", "uuid", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("ticket_players_player_idx").on("ticket_players").columns(["company_id", "player_id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("ticket_players").execute();
  await db.schema.dropTable("deliveries").execute();
  await db.schema.dropTable("webhooks").execute();
}
