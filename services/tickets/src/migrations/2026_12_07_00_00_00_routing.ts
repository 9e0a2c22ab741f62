// Routing's state in the tickets schema. routing_agents: when routing last gave each agent a
// ticket (round-robin picks who waited longest). tickets.routing_excluded_user_id: the agent who
// put a ticket back in the queue, whom routing passes over for it while someone else can take
// it. The partial index serves the queue (open, unassigned tickets of a game) and the count of
// an agent's open tickets.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("routing_agents")
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("user_id", "uuid", (c) => c.notNull())
    .addColumn("last_assigned_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("routing_agents_pkey", ["company_id", "user_id"])
    .execute();
  await db.schema.alterTable("tickets").addColumn("routing_excluded_user_id", "uuid").execute();
  await db.schema
    .createIndex("tickets_routing_queue")
    .on("tickets")
    .columns(["company_id", "game_id", "created_at"])
    .where(sql.ref("assignee_id"), "is", null)
    .where(sql.ref("closed_at"), "is", null)
    .execute();
  await db.schema
    .createIndex("tickets_open_by_assignee")
    .on("tickets")
    .columns(["company_id", "assignee_id"])
    .where(sql.ref("closed_at"), "is", null)
    .where(sql.ref("assignee_id"), "is not", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("tickets_open_by_assignee").execute();
  await db.schema.dropIndex("tickets_routing_queue").execute();
  await db.schema.alterTable("tickets").dropColumn("routing_excluded_user_id").execute();
  await db.schema.dropTable("routing_agents").execute();
}
