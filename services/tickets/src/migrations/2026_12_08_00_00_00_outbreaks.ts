// Outbreak detection's state in the tickets schema (docs/automation.md#outbreaks).
// outbreak_settings: a company's settings (no row: the defaults). outbreak_vectors: the text
// vector of each recent ticket of a game, kept for the window only (rows older than the
// company's window are swept on each new ticket of the game), with the incident it joined.
// incidents and incident_tickets: the incidents and their tickets; a ticket is in one incident
// at most. Rows go with their ticket when it is deleted (a player's erasure).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("outbreak_settings")
    .addColumn("company_id", "uuid", (c) => c.primaryKey())
    .addColumn("enabled", "boolean", (c) => c.notNull())
    .addColumn("min_tickets", "integer", (c) => c.notNull())
    .addColumn("window_minutes", "integer", (c) => c.notNull())
    .addColumn("similarity", "double precision", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("incidents")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('open', 'closed')`))
    .addColumn("vector", "bytea", (c) => c.notNull())
    .addColumn("opened_at", "timestamptz", (c) => c.notNull())
    .addColumn("closed_at", "timestamptz")
    .addColumn("closed_by_user_id", "uuid")
    .execute();
  await db.schema.createIndex("incidents_by_game").on("incidents").columns(["company_id", "game_id", "opened_at"]).execute();
  await db.schema
    .createTable("incident_tickets")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey().references("tickets.id").onDelete("cascade"))
    .addColumn("incident_id", "uuid", (c) => c.notNull().references("incidents.id").onDelete("cascade"))
    .addColumn("linked_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("incident_tickets_by_incident").on("incident_tickets").columns(["incident_id", "linked_at"]).execute();
  await db.schema
    .createTable("outbreak_vectors")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey().references("tickets.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("vector", "bytea", (c) => c.notNull())
    .addColumn("incident_id", "uuid")
    .execute();
  await db.schema.createIndex("outbreak_vectors_recent").on("outbreak_vectors").columns(["company_id", "game_id", "created_at"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("outbreak_vectors").execute();
  await db.schema.dropTable("incident_tickets").execute();
  await db.schema.dropTable("incidents").execute();
  await db.schema.dropTable("outbreak_settings").execute();
}
