// The pool's waiting line, bounded for the calls a service handles for a caller: a query waits
// for a connection only while its caller still waits for the answer (the request's deadline,
// carried in the request context by the RPC server), and only behind a bounded number of
// others. A query whose caller gave up while it waited never reaches the database: it fails
// with deadline_exceeded when it gets its connection (handing the connection straight back),
// and a query arriving behind a full line fails at once with unavailable (503 and Retry-After at
// the gateway) instead of adding to a queue the service cannot work off. Work without a caller
// (relays, sweeps, consumers) waits as before: nobody is waiting on it to give up.
//
// The read lane: a few connections of their own for the queries of reads (calls whose RPC method
// declares no side effects, see RequestContext.readOnly), taken only when every connection of
// the pool is in use. Under a flood of writes, which holds every pooled connection for whole
// transactions and lines up behind them, a read then waits for a connection only behind other
// reads, and an agent's inbox or a game backend's list stays answered in its usual time.
import { AppError, BUSY_MESSAGE } from "@support/errors";
import { currentRequestContext } from "@support/logging";
import type pg from "pg";

/** The message of a query whose caller stopped waiting while it waited for a connection. */
export const POOL_DEADLINE_MESSAGE = "The request's deadline passed while it waited for a database connection; nothing was done";

/** Every connection of the pool is checked out: one more query waits. */
function isExhausted(pool: pg.Pool): boolean {
  return pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10);
}

/**
 * Wraps `pool.connect()` (the promise form, as kysely uses it) with the rules above. `maxWaiting`:
 * how many queries of callers may wait for a connection at once (in the pool, and apart from
 * them in the read lane); `readLane`: the reads' own pool, or none.
 */
export function boundWaitingLine(pool: pg.Pool, maxWaiting: number, readLane?: pg.Pool): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const bounded = async (): Promise<pg.PoolClient> => {
    const context = currentRequestContext();
    // A read finds every pooled connection busy: it waits in the lane, behind reads only.
    const line = readLane && context?.readOnly === true && isExhausted(pool) ? readLane : pool;
    const take = line === pool ? connect : () => readLane!.connect();
    const deadline = context?.deadline;
    if (deadline === undefined) return take();
    if (Date.now() >= deadline) throw new AppError("deadline_exceeded", POOL_DEADLINE_MESSAGE);
    if (isExhausted(line) && line.waitingCount >= maxWaiting) throw new AppError("unavailable", BUSY_MESSAGE);
    const client = await take();
    if (Date.now() >= deadline) {
      client.release();
      throw new AppError("deadline_exceeded", POOL_DEADLINE_MESSAGE);
    }
    return client;
  };
  pool.connect = ((callback?: unknown) => (typeof callback === "function" ? (connect as (cb: unknown) => void)(callback) : bounded())) as typeof pool.connect;
}
