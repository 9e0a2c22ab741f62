// Single sign-on with a company's OpenID provider: the company's configuration (issuer, client
// id, and only the NAME of the key of the service's Secret that holds the client secret: the
// secret itself is never in the database or a tenant file), and the
// attempts between the redirect to the provider and its callback (state, nonce and PKCE
// verifier, ten minutes, single-use; the browser holds only a token whose hash is kept here).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("company_single_sign_on")
    .addColumn("company_id", "uuid", (c) => c.primaryKey().references("companies.id").onDelete("cascade"))
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret_key", "text", (c) => c.notNull())
    .addColumn("allow_just_in_time_users", "boolean", (c) => c.notNull().defaultTo(false))
    // Lower-case domains; empty: any domain.
    .addColumn("email_domains", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("single_sign_on_attempts")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id").onDelete("cascade"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("nonce", "text", (c) => c.notNull())
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("return_to", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("single_sign_on_attempts").execute();
  await db.schema.dropTable("company_single_sign_on").execute();
}
