// Idempotency keys in a service's own schema. The record of a key is written in the same
// transaction as the work it stands for: either both commit or neither does, so a request
// whose process dies half way leaves no record and its retry does the work (once).
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { sql, type Kysely, type Transaction } from "kysely";
import { AppError } from "@support/errors";

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- any service's database

export interface IdempotencyKeysTable {
  idempotency_keys: {
    company_id: string;
    key: string;
    /** SHA-256 (hex) of the request the key was first used with. */
    fingerprint: string;
    /** The answer, the RPC response message in its binary form (sealed when the operation asks for it). */
    response: Uint8Array;
    created_at: Date;
  };
}

/** Migration step: the idempotency_keys table in the service's schema (first on its search_path). */
export async function createIdempotencyKeysTable(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("response", "bytea", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("idempotency_keys_pkey", ["company_id", "key"])
    .execute();
  // The purge scans by age.
  await db.schema.createIndex("idempotency_keys_created_at").on("idempotency_keys").column("created_at").execute();
}

export async function dropIdempotencyKeysTable(db: AnyDb): Promise<void> {
  await db.schema.dropTable("idempotency_keys").execute();
}

/** A request that carries an Idempotency-Key. */
export interface IdempotentRequest {
  companyId: string;
  key: string;
  fingerprint: string;
}

export interface RunOptions {
  /**
   * true (the default): the work runs inside the transaction that records the key, on the
   * database handle it is given, so the work and the record commit together. Its own
   * `db.transaction()` calls become savepoints of that transaction.
   *
   * false: for work that commits in several steps of its own and is idempotent by itself
   * (running it again gives the same answer, e.g. an erasure that resumes): it runs on the
   * service's ordinary database while the key stays locked, and the record commits after it.
   */
  sameTransaction?: boolean;
  /**
   * For answers that carry secrets (a signing secret shown once): `seal` turns the answer's
   * bytes into what is stored, `open` turns the stored bytes back, so the record never holds
   * the secret in plaintext. Both directions must be given together; `open` must undo `seal`.
   */
  seal?: ResponseSeal;
}

/** Encrypts the recorded answer at rest (e.g. AES-GCM under the service's key) and decrypts it to replay it. */
export interface ResponseSeal {
  seal(bytes: Uint8Array): Uint8Array;
  open(bytes: Uint8Array): Uint8Array;
}

export interface IdempotentOutcome<Desc extends DescMessage> {
  response: MessageShape<Desc>;
  /** The answer of the key's first request, recorded earlier; the work did not run. */
  replayed: boolean;
}

export function idempotencyKeyInUse(): AppError {
  return new AppError("idempotency_key_in_use", "A request with this Idempotency-Key is still being handled; retry after it has completed");
}

export function idempotencyKeyReused(): AppError {
  return new AppError("idempotency_key_reused", "This Idempotency-Key was already used for a different request");
}

/**
 * Runs `work` once per (company, key): the first request does the work and records its answer
 * (`schema` is the answer's message type) in the same transaction; a later request with the
 * same fingerprint gets that answer back without the work running again; one with another
 * fingerprint is refused (idempotency_key_reused, 422), and one that arrives while the first is
 * still running is refused too (idempotency_key_in_use, 409) rather than waiting. A failed
 * request records nothing: its retry runs again.
 */
export async function runIdempotent<DB, Desc extends DescMessage>(
  db: Kysely<DB>,
  request: IdempotentRequest,
  schema: Desc,
  work: (db: Kysely<DB>) => Promise<MessageInitShape<Desc>>,
  options: RunOptions = {},
): Promise<IdempotentOutcome<Desc>> {
  const companyId = request.companyId.toLowerCase();
  const { key, fingerprint } = request;
  return (db as AnyDb).transaction().execute(async (trx: Transaction<IdempotencyKeysTable>) => {
    // Per service schema too: another service's work under the same key is not this one's.
    const lockName = `${companyId}\n${key}`;
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(hashtextextended(current_schema() || ${"\n"} || ${lockName}, 0)) as locked`.execute(trx);
    if (rows[0]?.locked !== true) throw idempotencyKeyInUse();

    const recorded = await trx
      .selectFrom("idempotency_keys")
      .select(["fingerprint", "response"])
      .where("company_id", "=", companyId)
      .where("key", "=", key)
      .executeTakeFirst();
    if (recorded !== undefined) {
      if (recorded.fingerprint !== fingerprint) throw idempotencyKeyReused();
      const bytes = options.seal ? options.seal.open(recorded.response) : recorded.response;
      return { response: fromBinary(schema, bytes), replayed: true };
    }

    const answer = create(schema, await work(options.sameTransaction === false ? db : (nestable(trx) as unknown as Kysely<DB>)));
    const bytes = toBinary(schema, answer);
    await trx
      .insertInto("idempotency_keys")
      .values({ company_id: companyId, key, fingerprint, response: options.seal ? options.seal.seal(bytes) : bytes, created_at: sql<Date>`now()` })
      .execute();
    return { response: answer, replayed: false };
  });
}

/**
 * The transaction as a database handle whose `transaction()` opens a savepoint instead of
 * failing, so that a use case that opens its own transaction runs unchanged inside this one:
 * its rollback undoes its own writes, and its commit waits for the enclosing one.
 */
export function nestable<DB>(trx: Transaction<DB>): Kysely<DB> {
  let savepoints = 0;
  const handle: Kysely<DB> = new Proxy(trx, {
    get(target, property) {
      if (property === "transaction") return () => savepointBuilder();
      if (property === "connection") return () => ({ execute: <T>(callback: (db: Kysely<DB>) => Promise<T>) => callback(handle) });
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  function savepointBuilder() {
    const builder = {
      // The isolation and access mode of the enclosing transaction apply.
      setIsolationLevel: () => builder,
      setAccessMode: () => builder,
      async execute<T>(callback: (db: Kysely<DB>) => Promise<T>): Promise<T> {
        const name = sql.id(`nested_${++savepoints}`);
        await sql`savepoint ${name}`.execute(trx);
        try {
          const result = await callback(handle);
          await sql`release savepoint ${name}`.execute(trx);
          return result;
        } catch (error) {
          await sql`rollback to savepoint ${name}`.execute(trx).catch(() => undefined);
          throw error;
        }
      },
    };
    return builder;
  }
  return handle;
}

/** Deletes up to `limit` records created before `before`; returns how many. Safe on every replica at once. */
export async function purgeIdempotencyKeysBatch(db: AnyDb, before: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where (company_id, key) in (
      select company_id, key from idempotency_keys where created_at < ${before}
      order by created_at limit ${limit} for update skip locked)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
