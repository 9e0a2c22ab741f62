// Use cases open their own transaction, unless their caller (applying a whole tenant file for the
// admin tool) already runs one: then they join it, so one bad entry rolls back all.
import type { Kysely, Transaction } from "kysely";

export async function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<DB>);
  return db.transaction().execute(work);
}
