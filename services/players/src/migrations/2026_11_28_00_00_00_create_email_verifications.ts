// A web support session's email address proven by a one-time code: when it was proven, and the
// code waiting to be entered (only its hash). Both go with their session.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("support_sessions").addColumn("email_verified_at", "timestamptz").execute();
  await db.schema
    .createTable("email_verifications")
    .addColumn("session_id", "uuid", (c) => c.primaryKey().references("support_sessions.id").onDelete("cascade"))
    .addColumn("email_normalized", "text", (c) => c.notNull())
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sends", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("last_sent_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("email_verifications").execute();
  await db.schema.alterTable("support_sessions").dropColumn("email_verified_at").execute();
}
