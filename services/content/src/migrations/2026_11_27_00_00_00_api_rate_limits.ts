// Per-company and per-key API rate limits (requests per minute). Null: the gateway's default
// for a company, the company's limit for a key. Columns are only added: a service of the
// previous release keeps working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("companies")
    .addColumn("api_rate_limit_per_minute", "integer", (c) => c.check(sql`api_rate_limit_per_minute > 0`))
    .execute();
  await db.schema
    .alterTable("api_keys")
    .addColumn("rate_limit_per_minute", "integer", (c) => c.check(sql`rate_limit_per_minute > 0`))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("rate_limit_per_minute").execute();
  await db.schema.alterTable("companies").dropColumn("api_rate_limit_per_minute").execute();
}
