// The attachments table. Partial indexes serve the three ways rows are found besides the
// primary key: the sweep of unused uploads (oldest first), the sweep of tombstones, and
// erasure by service player id or by (game, external player id).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("attachments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("object_key", "text", (c) => c.notNull().unique())
    .addColumn("file_name", "text")
    .addColumn("file_type", "text", (c) => c.notNull())
    .addColumn("file_size", "bigint", (c) => c.notNull().check(sql`file_size > 0`))
    .addColumn("player_id", "text")
    .addColumn("service_player_id", "uuid")
    .addColumn("ticket_id", "uuid")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("upload_expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("uploaded_at", "timestamptz")
    .addColumn("used_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .addCheckConstraint("attachments_live_has_name_check", sql`deleted_at is not null or file_name is not null`)
    .execute();
  await db.schema
    .createIndex("attachments_unused_created_at_idx")
    .on("attachments")
    .column("created_at")
    .where(sql.ref("used_at"), "is", null)
    .where(sql.ref("deleted_at"), "is", null)
    .execute();
  await db.schema
    .createIndex("attachments_tombstone_upload_expires_at_idx")
    .on("attachments")
    .column("upload_expires_at")
    .where(sql.ref("deleted_at"), "is not", null)
    .execute();
  await db.schema
    .createIndex("attachments_service_player_idx")
    .on("attachments")
    .columns(["company_id", "service_player_id"])
    .where(sql.ref("service_player_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("attachments_external_player_idx")
    .on("attachments")
    .columns(["company_id", "game_id", "player_id"])
    .where(sql.ref("player_id"), "is not", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("attachments").execute();
}
