// SLA state in the tickets schema. sla_settings: each company's calendar and policies (one row;
// none: no SLA). sla_notices: each warning and breach the sweep announced, at most once per
// ticket, metric, cycle and kind (the primary key makes several sweeping replicas agree).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("sla_settings")
    .addColumn("company_id", "uuid", (c) => c.primaryKey())
    .addColumn("calendar", "jsonb")
    .addColumn("policies", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("sla_notices")
    .addColumn("ticket_id", "uuid", (c) => c.notNull().references("tickets.id").onDelete("cascade"))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("metric", "text", (c) => c.notNull())
    .addColumn("cycle", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("policy_id", "text", (c) => c.notNull())
    .addColumn("due_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("sla_notices_pkey", ["ticket_id", "metric", "cycle", "kind"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("sla_notices").execute();
  await db.schema.dropTable("sla_settings").execute();
}
