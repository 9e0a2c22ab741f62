// Queries on players.rate_limits: one atomic upsert per bucket and request, and the cleanup of
// windows that have ended. The database clock decides the window, so gateway clocks may drift.
import { sql, type Kysely } from "@support/db";
import type { PlayersDatabase } from "../database.ts";
import type { BucketCount } from "./rate-limit.ts";

type Db = Kysely<PlayersDatabase>;

/** Adds one to the bucket's counter of the current window and returns the new count. */
export async function incrementBucket(db: Db, key: string, windowSeconds: number): Promise<BucketCount> {
  const table = sql.table("rate_limits");
  const { rows } = await sql<{ count: number; retry_after_seconds: number }>`
    insert into ${table} as r (bucket_key, window_start, count, expires_at)
    select ${key}, w.start, 1, w.start + make_interval(secs => ${windowSeconds})
    from (select to_timestamp((floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds})::double precision) as start) w
    on conflict (bucket_key, window_start) do update set count = r.count + 1
    returning r.count, greatest(1, ceil(extract(epoch from (r.expires_at - now()))))::int as retry_after_seconds`.execute(db);
  const row = rows[0]!;
  return { count: row.count, retryAfterSeconds: row.retry_after_seconds };
}

/** Deletes the counters of windows that have ended; returns how many. */
export async function deleteEndedWindows(db: Db): Promise<number> {
  const result = await db.deleteFrom("rate_limits").where("expires_at", "<=", sql<Date>`now()`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
