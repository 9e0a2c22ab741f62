// Routing's settings: per user, whether routing may assign them tickets (their own toggle, away
// until they say otherwise), the ticket languages they speak (none: every language) and how many
// open tickets routing gives them at most; per game, whether routing is on (off: nothing changes
// for an existing tenant). Added with defaults, so a service of the previous release keeps
// working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("available", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("languages", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("capacity", "integer", (c) => c.notNull().defaultTo(10))
    .execute();
  await db.schema.alterTable("games").addColumn("routing_enabled", "boolean", (c) => c.notNull().defaultTo(false)).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("games").dropColumn("routing_enabled").execute();
  await db.schema.alterTable("users").dropColumn("available").dropColumn("languages").dropColumn("capacity").execute();
}
