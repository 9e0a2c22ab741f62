// Canned responses (canned-responses/): a company's ready answers, company-wide or per game,
// texts by language and optional actions. A name is unique among the live responses of its
// scope; a retired response stays for the audit log's references.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("canned_responses")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id").onDelete("cascade"))
    .addColumn("game_id", "uuid", (c) => c.references("games.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("texts", "jsonb", (c) => c.notNull())
    .addColumn("actions", "jsonb", (c) => c.notNull())
    .addColumn("created_by", "uuid", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("retired_at", "timestamptz")
    .execute();
  await sql`create unique index canned_responses_live_name_key on canned_responses (company_id, coalesce(game_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name)) where retired_at is null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("canned_responses").execute();
}
