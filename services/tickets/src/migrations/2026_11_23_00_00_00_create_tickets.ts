// The tickets schema: per-company running-id counters, tickets (tags and fields on the row so
// that listing needs no joins and the all-of filters are one GIN probe), their events and
// their SDK breadcrumbs. Every list path has an index led by company_id whose tail is the
// keyset (created_at, running_id), so a page costs the same in a company of any size.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const newId = sql`gen_random_uuid()`;
const now = sql`clock_timestamp()`;

export async function up(db: AnyDb): Promise<void> {
  // Trigram similarity for the duplicate check (a similarity of at least 0.6
  // counts as a duplicate). Extensions live in public, which is on
  // every service's search_path.
  await sql`create extension if not exists pg_trgm with schema public`.execute(db);

  // One row per company, updated in the ticket's transaction: the row lock serialises the
  // creations of one company from the increment to commit, so running ids have no gaps and
  // tickets become visible in running-id order (see docs/design.md).
  await db.schema
    .createTable("ticket_counters")
    .addColumn("company_id", "uuid", (c) => c.primaryKey())
    .addColumn("last_running_id", "bigint", (c) => c.notNull())
    .addColumn("last_created_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("tickets")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("running_id", "bigint", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("game_environment_id", "uuid", (c) => c.notNull())
    .addColumn("service_player_id", "uuid")
    .addColumn("player_external_id", "text")
    .addColumn("player_name", "text")
    .addColumn("email", "text")
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status in ('new', 'assigned', 'unassigned', 'waiting', 'on_hold', 'closed')`),
    )
    .addColumn("support_source", "text")
    .addColumn("channels", sql`text[]`, (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("platform", "text", (c) => c.notNull().defaultTo("not_specified"))
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("tags", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn("fields", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("assignee_id", "uuid")
    .addColumn("resolution_type", "text", (c) => c.check(sql`resolution_type in ('resolved', 'rejected', 'auto_closed', 'merged')`))
    .addColumn("csat_score", "smallint", (c) => c.check(sql`csat_score between 1 and 5`))
    .addColumn("csat_review", "text")
    .addColumn("issue_summary", "text")
    .addColumn("issue_resolution", "text")
    .addColumn("follow_up_ticket_id", "uuid")
    .addColumn("reopened_from_ticket_id", "uuid")
    // The first player message, and its normalised form for the duplicate check.
    .addColumn("first_message", "text", (c) => c.notNull())
    .addColumn("first_message_normalized", "text", (c) => c.notNull())
    // Auto-close clock (a waiting ticket without a player message for the company's
    // autoCloseWaitingAfterHours is closed as auto_closed): when the ticket entered waiting, and
    // the last player message.
    .addColumn("waiting_since", "timestamptz")
    .addColumn("last_player_message_at", "timestamptz")
    .addColumn("client_clock_offset_ms", "bigint")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_activity_at", "timestamptz")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addCheckConstraint("tickets_closed_has_resolution", sql`(status = 'closed') = (resolution_type is not null)`)
    .addCheckConstraint("tickets_waiting_has_since", sql`(status = 'waiting') = (waiting_since is not null)`)
    .execute();

  // The keyset of every listing: creation order within a company. running_id breaks ties.
  await sql`create unique index tickets_company_created_key on tickets (company_id, created_at, running_id)`.execute(db);
  await sql`create unique index tickets_company_running_id_key on tickets (company_id, running_id)`.execute(db);
  // Equality filters keep the keyset order inside their own index.
  await sql`create index tickets_company_game_created_idx on tickets (company_id, game_id, created_at, running_id)`.execute(db);
  await sql`create index tickets_company_player_created_idx on tickets (company_id, player_external_id, created_at, running_id)
    where player_external_id is not null`.execute(db);
  await sql`create index tickets_company_email_created_idx on tickets (company_id, lower(email), created_at, running_id)
    where email is not null`.execute(db);
  await sql`create index tickets_company_status_created_idx on tickets (company_id, status, created_at, running_id)`.execute(db);
  // All-of filters: text[] @> and jsonb @> are answered by GIN. Without fastupdate: a pending
  // list would be scanned in full by every filtered read until vacuum merges it.
  await sql`create index tickets_tags_idx on tickets using gin (tags) with (fastupdate = off)`.execute(db);
  await sql`create index tickets_fields_idx on tickets using gin (fields jsonb_path_ops) with (fastupdate = off)`.execute(db);
  // Duplicate check: the open tickets of one player.
  await sql`create index tickets_open_player_idx on tickets (company_id, service_player_id, game_id)
    where status <> 'closed'`.execute(db);
  // Auto-close sweep: waiting tickets by how long they have waited.
  await sql`create index tickets_waiting_idx on tickets (company_id, waiting_since) where status = 'waiting'`.execute(db);

  // Everything that happened to a ticket, public types (those GET /tickets/{id}/events returns) and
  // internal ones (audit of actions). seq is the creation order.
  await db.schema
    .createTable("ticket_events")
    .addColumn("seq", "bigserial", (c) => c.primaryKey())
    .addColumn("id", "uuid", (c) => c.notNull().unique().defaultTo(newId))
    .addColumn("ticket_id", "uuid", (c) => c.notNull().references("tickets.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "jsonb", (c) => c.notNull())
    // Who caused it: {"type": "user" | "api_key" | "player" | "system", "id": ...}.
    .addColumn("actor", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await sql`create index ticket_events_ticket_seq_idx on ticket_events (ticket_id, seq)`.execute(db);

  await db.schema
    .createTable("ticket_breadcrumbs")
    .addColumn("seq", "bigserial", (c) => c.primaryKey())
    .addColumn("ticket_id", "uuid", (c) => c.notNull().references("tickets.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("client_occurred_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await sql`create index ticket_breadcrumbs_ticket_seq_idx on ticket_breadcrumbs (ticket_id, seq)`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("ticket_breadcrumbs").execute();
  await db.schema.dropTable("ticket_events").execute();
  await db.schema.dropTable("tickets").execute();
  await db.schema.dropTable("ticket_counters").execute();
}
