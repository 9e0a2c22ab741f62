// Triage of the AI flags in the tickets schema. triage_models: one trained model per company
// (replaced whole by the training job, so a ticket is never classified by half a model).
// triage_settings: the company's "set" threshold. triage_runs: one row per classified ticket
// (classification happens once per ticket, whatever the redeliveries). triage_predictions: what
// the triage set or suggested on a ticket and what became of it, for the console's suggestions
// and the online precision.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("triage_models")
    .addColumn("company_id", "uuid", (c) => c.primaryKey())
    .addColumn("format", "integer", (c) => c.notNull())
    .addColumn("trained_at", "timestamptz", (c) => c.notNull())
    .addColumn("tickets", "integer", (c) => c.notNull())
    .addColumn("schema", "jsonb", (c) => c.notNull())
    .addColumn("model", "jsonb", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("triage_settings")
    .addColumn("company_id", "uuid", (c) => c.primaryKey())
    .addColumn("threshold", "double precision", (c) => c.notNull().check(sql`threshold >= 0.5 and threshold <= 1`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("triage_runs")
    .addColumn("ticket_id", "uuid", (c) => c.primaryKey())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("classified_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("model_trained_at", "timestamptz")
    .execute();
  await db.schema
    .createTable("triage_predictions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("ticket_id", "uuid", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('tag', 'field')`))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("confidence", "double precision", (c) => c.notNull())
    .addColumn("decision", "text", (c) => c.notNull().check(sql`decision in ('set', 'suggest')`))
    .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('set', 'pending', 'applied', 'dismissed')`))
    .addColumn("model", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("decided_at", "timestamptz")
    .addColumn("decided_by", "uuid")
    .addUniqueConstraint("triage_predictions_ticket_name", ["ticket_id", "kind", "name"])
    .execute();
  await db.schema.createIndex("triage_predictions_company").on("triage_predictions").columns(["company_id", "created_at"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("triage_predictions").execute();
  await db.schema.dropTable("triage_runs").execute();
  await db.schema.dropTable("triage_settings").execute();
  await db.schema.dropTable("triage_models").execute();
}
