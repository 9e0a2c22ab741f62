// Player erasure: the service player ids whose tickets were erased, so that no ticket of
// theirs is created afterwards, and an index that finds all of a player's tickets (the
// duplicate-check index holds open tickets only).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("erased_players")
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("service_player_id", "uuid", (c) => c.notNull())
    .addColumn("erased_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint("erased_players_pkey", ["company_id", "service_player_id"])
    .execute();
  await sql`create index tickets_company_service_player_idx on tickets (company_id, service_player_id)
    where service_player_id is not null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop index tickets_company_service_player_idx`.execute(db);
  await db.schema.dropTable("erased_players").execute();
}
