// The attempts in flight (claimed, not yet recorded) per webhook: counted at every claim to
// bound each webhook's concurrency, so they get their own small index.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("deliveries_in_flight_idx")
    .on("deliveries")
    .columns(["webhook_id", "locked_until"])
    .where(sql.ref("status"), "=", "pending")
    .where(sql.ref("locked_until"), "is not", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("deliveries_in_flight_idx").execute();
}
