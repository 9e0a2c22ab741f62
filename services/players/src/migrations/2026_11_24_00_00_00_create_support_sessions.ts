// Web support sessions and the fixed-window counters that rate limit the public endpoints
// for every gateway replica. rate_limits is UNLOGGED: counters are worth no WAL, and losing
// them in a crash or failover only resets the current windows.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("support_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("code_hash", "text", (c) => c.notNull().unique())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("environment_id", "uuid", (c) => c.notNull())
    .addColumn("language", "text")
    .addColumn("resource", "text")
    .addColumn("metadata", "jsonb", (c) => c.notNull())
    .addColumn("verification", "text", (c) => c.notNull().check(sql`verification in ('verified', 'unverified', 'anonymous')`))
    .addColumn("player_external_id", "text")
    .addColumn("player_email_normalized", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("support_sessions_expires_at_idx").on("support_sessions").column("expires_at").execute();
  await db.schema.createIndex("support_sessions_company_id_idx").on("support_sessions").column("company_id").execute();
  await db.schema
    .createIndex("support_sessions_player_external_id_idx")
    .on("support_sessions")
    .columns(["game_id", "player_external_id"])
    .where(sql.ref("player_external_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("support_sessions_player_email_idx")
    .on("support_sessions")
    .columns(["game_id", "player_email_normalized"])
    .where(sql.ref("player_email_normalized"), "is not", null)
    .execute();

  await db.schema
    .createTable("rate_limits")
    .modifyFront(sql`unlogged`)
    .addColumn("bucket_key", "text", (c) => c.notNull())
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("rate_limits_pkey", ["bucket_key", "window_start"])
    .execute();
  await db.schema.createIndex("rate_limits_expires_at_idx").on("rate_limits").column("expires_at").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("rate_limits").execute();
  await db.schema.dropTable("support_sessions").execute();
}
