// The support application's sign-in: users get a role, a display name and an active flag; their
// password hashes, sessions (only token hashes), sign-in failures (throttling) and the audit log
// live beside them. Columns are only added with defaults: a service of the previous release keeps
// working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("role", "text", (c) => c.notNull().defaultTo("agent").check(sql`role in ('admin', 'agent')`))
    .addColumn("display_name", "text")
    .addColumn("active", "boolean", (c) => c.notNull().defaultTo(true))
    .execute();
  // Sign-in names a user by email across companies; this index finds them.
  await db.schema.createIndex("users_email_lower").on("users").expression(sql`lower(email)`).execute();

  await db.schema
    .createTable("user_credentials")
    .addColumn("user_id", "uuid", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("agent_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("client_address", "text")
    .addColumn("user_agent", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("last_seen_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("idle_expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("ended_at", "timestamptz")
    .addColumn("ended_reason", "text")
    .execute();
  await db.schema.createIndex("agent_sessions_live_by_user").on("agent_sessions").columns(["user_id"]).where(sql.ref("ended_at"), "is", null).execute();

  // One row per throttled key ("account:<email>" or "address:<ip>"): failures in the current
  // window, and the end of a lockout.
  await db.schema
    .createTable("sign_in_failures")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("window_started_at", "timestamptz", (c) => c.notNull())
    .addColumn("locked_until", "timestamptz")
    .execute();

  await db.schema
    .createTable("audit_log")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("company_id", "uuid")
    .addColumn("user_id", "uuid")
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("actor", "jsonb", (c) => c.notNull())
    .addColumn("detail", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("client_address", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("audit_log_by_company").on("audit_log").columns(["company_id", "id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("audit_log").execute();
  await db.schema.dropTable("sign_in_failures").execute();
  await db.schema.dropTable("agent_sessions").execute();
  await db.schema.dropTable("user_credentials").execute();
  await db.schema.dropIndex("users_email_lower").execute();
  await db.schema.alterTable("users").dropColumn("active").dropColumn("display_name").dropColumn("role").execute();
}
