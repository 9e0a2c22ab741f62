// The tenant files applied by the admin tool, by the digest of the file: applying the same file
// again returns the ids recorded here instead of creating a second company.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("tenant_applications")
    .addColumn("digest", "text", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("result", "jsonb", (c) => c.notNull())
    .addColumn("applied_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("tenant_applications").execute();
}
