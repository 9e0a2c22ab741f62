// Queries on players.rate_limits: the atomic upserts of a request's buckets, and the cleanup of
// windows that have ended. The database clock decides the window, so gateway clocks may drift.
import { sql, type Kysely } from "@support/db";
import type { PlayersDatabase } from "../database.ts";
import type { BucketCount } from "./rate-limit.ts";

type Db = Kysely<PlayersDatabase>;

/**
 * Adds one to each bucket's counter of the current window, in order, in one statement, and
 * returns the new counts: a bucket is counted only while every earlier one stayed within its
 * limit (the rest come back as undefined). Each upsert is atomic on its own.
 */
export async function incrementBuckets(db: Db, buckets: readonly { key: string; limit: number }[], windowSeconds: number): Promise<(BucketCount | undefined)[]> {
  const table = sql.table("rate_limits");
  const steps = buckets.map((bucket, index) => {
    const previous = index === 0 ? sql`` : sql` where (select count from ${sql.table(`b${index - 1}`)}) <= ${buckets[index - 1]!.limit}`;
    return sql`${sql.table(`b${index}`)} as (
      insert into ${table} as r (bucket_key, window_start, count, expires_at)
      select ${bucket.key}, w.start, 1, w.start + make_interval(secs => ${windowSeconds}) from w${previous}
      on conflict (bucket_key, window_start) do update set count = r.count + 1
      returning r.count, greatest(1, ceil(extract(epoch from (r.expires_at - now()))))::int as retry_after_seconds)`;
  });
  const results = buckets.map((_, index) => {
    const step = sql.table(`b${index}`);
    return sql`(select count from ${step}) as ${sql.ref(`c${index}`)}, (select retry_after_seconds from ${step}) as ${sql.ref(`r${index}`)}`;
  });
  const { rows } = await sql<Record<string, number | null>>`
    with w as (select to_timestamp((floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds})::double precision) as start),
    ${sql.join(steps, sql`, `)}
    select ${sql.join(results, sql`, `)}`.execute(db);
  const row = rows[0]!;
  return buckets.map((_, index) => {
    const count = row[`c${index}`];
    const retryAfterSeconds = row[`r${index}`];
    return count === null || count === undefined ? undefined : { count, retryAfterSeconds: retryAfterSeconds! };
  });
}

/** Deletes the counters of windows that have ended; returns how many. */
export async function deleteEndedWindows(db: Db): Promise<number> {
  const result = await db.deleteFrom("rate_limits").where("expires_at", "<=", sql<Date>`now()`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
