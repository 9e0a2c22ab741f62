// Player deletion (scheduled and immediate). deletion_schedules: at most one pending schedule per player
// (the truth the delayed NATS message is checked against). erasures: one per player, the
// progress of its erasure step by step, kept after completion as the audit record (ids,
// requester, times and counts: no personal data). Migrations never import application code.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("deletion_schedules")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("player_id", "uuid", (c) => c.notNull().unique().references("players.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("requested_by_type", "text", (c) => c.notNull().check(sql`requested_by_type in ('api_key', 'operator')`))
    .addColumn("requested_by_id", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("due_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("deletion_schedules_due_at_idx").on("deletion_schedules").columns(["due_at", "id"]).execute();

  await db.schema
    .createTable("erasures")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    // No foreign key: the record outlives the player.
    .addColumn("player_id", "uuid", (c) => c.notNull().unique())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull().check(sql`trigger in ('scheduled', 'immediate')`))
    .addColumn("requested_by_type", "text", (c) => c.notNull().check(sql`requested_by_type in ('api_key', 'operator')`))
    .addColumn("requested_by_id", "text")
    .addColumn("requested_at", "timestamptz", (c) => c.notNull())
    .addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("completed_at", "timestamptz")
    // {"tickets": {"status": "done", "at": ..., "counts": {...}}, "media": ..., "players": ...}
    .addColumn("steps", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    // The error code of the last failed attempt (never a message: it could quote data).
    .addColumn("last_error", "text")
    .execute();
  await db.schema.createIndex("erasures_company_started_idx").on("erasures").columns(["company_id", "started_at"]).execute();
  await sql`create index erasures_running_idx on erasures (started_at) where completed_at is null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("erasures").execute();
  await db.schema.dropTable("deletion_schedules").execute();
}
