// Rules (rules/): a company's automation rules in their order, and the history of what each did on
// each ticket. A run is recorded once per rule and triggering event (the unique key makes a
// redelivered event a no-op); it goes with its ticket (a player's erasure deletes it) and keeps
// the rule's name, so the history of a deleted rule stays readable.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("rules")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("enabled", "boolean", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("trigger_type", "text", (c) => c.notNull())
    .addColumn("trigger", "jsonb", (c) => c.notNull())
    .addColumn("conditions", "jsonb", (c) => c.notNull())
    .addColumn("actions", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("rules_company_position").on("rules").columns(["company_id", "position"]).execute();
  await db.schema
    .createTable("rule_runs")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("rule_id", "uuid", (c) => c.notNull())
    .addColumn("rule_name", "text", (c) => c.notNull())
    .addColumn("ticket_id", "uuid", (c) => c.notNull().references("tickets.id").onDelete("cascade"))
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("event_id", "uuid", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("depth", "integer", (c) => c.notNull())
    .addColumn("actions", "jsonb", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addUniqueConstraint("rule_runs_rule_event_key", ["rule_id", "event_id"])
    .execute();
  await db.schema.createIndex("rule_runs_ticket").on("rule_runs").columns(["ticket_id", "created_at"]).execute();
  await db.schema.createIndex("rule_runs_rule").on("rule_runs").columns(["rule_id", "created_at"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("rule_runs").execute();
  await db.schema.dropTable("rules").execute();
}
