// Two-factor sign-in (TOTP, RFC 6238): a user's sealed secret (AES-256-GCM, never in clear) and
// the last time step used (replays refused), ten recovery codes (only their hashes), the
// short-lived challenges between the password and the code (only their token hashes), a
// session's scope (a user who must enrol first gets a session limited to enrolment), and the
// company setting that requires two-factor for everyone. Columns are only added with defaults:
// a service of the previous release keeps working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("companies").addColumn("require_two_factor", "boolean", (c) => c.notNull().defaultTo(false)).execute();
  await db.schema
    .alterTable("agent_sessions")
    .addColumn("scope", "text", (c) => c.notNull().defaultTo("full").check(sql`scope in ('full', 'two_factor_enrolment')`))
    .execute();

  await db.schema
    .createTable("user_two_factor")
    .addColumn("user_id", "uuid", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    // "v1.<base64 nonce|tag|ciphertext>" under TOTP_ENCRYPTION_KEY, bound to the user id.
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    // Null while the enrolment awaits its confirming code: two-factor is on once set.
    .addColumn("enabled_at", "timestamptz")
    // The last RFC 6238 time step accepted (confirmation or sign-in): a code of that step or an
    // earlier one is a replay.
    .addColumn("last_used_step", "bigint")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("user_recovery_codes")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("user_recovery_codes_user_code", ["user_id", "code_hash"])
    .execute();

  await db.schema
    .createTable("two_factor_challenges")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .execute();
  await db.schema.createIndex("two_factor_challenges_by_user").on("two_factor_challenges").columns(["user_id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("two_factor_challenges").execute();
  await db.schema.dropTable("user_recovery_codes").execute();
  await db.schema.dropTable("user_two_factor").execute();
  await db.schema.alterTable("agent_sessions").dropColumn("scope").execute();
  await db.schema.alterTable("companies").dropColumn("require_two_factor").execute();
}
