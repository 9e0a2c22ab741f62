// Queries on players.rate_limits: the atomic upserts of a request's buckets, one batched upsert
// of a gateway replica's API-key usage, and the cleanup of
// windows that have ended. The database clock decides the window, so gateway clocks may drift.
import { sql, type Kysely } from "@support/db";
import type { PlayersDatabase } from "../database.ts";
import type { BucketCount, RateLimitTotal, RateLimitUsage } from "./rate-limit.ts";

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

/**
 * Adds every usage to its counter in one statement (duplicates of a bucket and window summed
 * first: one row may be updated only once per statement) and returns each counter's total.
 */
export async function addUsages(db: Db, windowSeconds: number, usages: RateLimitUsage[]): Promise<RateLimitTotal[]> {
  const table = sql.table("rate_limits");
  const keys = usages.map((usage) => usage.key);
  const starts = usages.map((usage) => usage.windowStart);
  const deltas = usages.map((usage) => usage.delta);
  const { rows } = await sql<{ bucket_key: string; window_start: string; count: number }>`
    insert into ${table} as r (bucket_key, window_start, count, expires_at)
    select u.key, to_timestamp(u.start), sum(u.delta)::int, to_timestamp(u.start + ${windowSeconds})
    from unnest(${keys}::text[], ${starts}::bigint[], ${deltas}::int[]) as u(key, start, delta)
    group by u.key, u.start
    on conflict (bucket_key, window_start) do update set count = r.count + excluded.count
    returning r.bucket_key, extract(epoch from r.window_start)::bigint::text as window_start, r.count`.execute(db);
  const totals = new Map(rows.map((row) => [`${row.window_start} ${row.bucket_key}`, row.count]));
  return usages.map((usage) => ({ key: usage.key, windowStart: usage.windowStart, total: totals.get(`${usage.windowStart} ${usage.key}`) ?? 0 }));
}
