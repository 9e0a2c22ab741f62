// Invitation and password-reset links of the support application's users: single use, with an
// expiry, stored only as the SHA-256 of their token.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("user_links")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("purpose", "text", (c) => c.notNull().check(sql`purpose in ('invitation', 'password_reset')`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("user_links").execute();
}
