// SLA state in the tickets schema. sla_settings: each company's calendar and policies (one row;
// none: no SLA). sla_notices: each warning and breach the sweep announced, at most once per
// ticket, metric, cycle and kind (the primary key makes several sweeping replicas agree).
// tickets.sla_due_at: when the ticket's open SLA clock due soonest is (or was) due, as the last
// sweep computed it (null: none running); the agent lists sort by it, open tickets only.
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
  await db.schema.alterTable("tickets").addColumn("sla_due_at", "timestamptz").execute();
  await sql`create index tickets_sla_due_idx on tickets (company_id, (coalesce(sla_due_at, 'infinity'::timestamptz)), running_id) where closed_at is null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop index tickets_sla_due_idx`.execute(db);
  await db.schema.alterTable("tickets").dropColumn("sla_due_at").execute();
  await db.schema.dropTable("sla_notices").execute();
  await db.schema.dropTable("sla_settings").execute();
}
