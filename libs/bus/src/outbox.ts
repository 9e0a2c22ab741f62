// Transactional outbox (D11): events are written in the same transaction as the change they
// describe, and a relay publishes them to JetStream after commit with Nats-Msg-Id = event id,
// so an event is published at least once and a re-publish is dropped by the stream.
import { sql, type Kysely, type Transaction } from "kysely";
import pg from "pg";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "@support/logging";
import { createEnvelope, subjectFor, type EventEnvelope, type NewEvent } from "./envelope.ts";

export interface OutboxTable {
  outbox: {
    seq: number;
    id: string;
    type: string;
    company_id: string;
    envelope: EventEnvelope;
    created_at: Date;
  };
}

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Migration step: the outbox table in the service's schema (first on its search_path). */
export async function createOutboxTable(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("outbox")
    .addColumn("seq", "bigserial", (c) => c.primaryKey())
    .addColumn("id", "uuid", (c) => c.notNull().unique())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("envelope", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

/** Writes events in the caller's transaction and wakes the relay when it commits. */
export async function writeEvents(trx: Transaction<any> | AnyDb, events: NewEvent[]): Promise<EventEnvelope[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (events.length === 0) return [];
  const envelopes = events.map((event) => createEnvelope(event));
  await trx
    .insertInto("outbox")
    .values(envelopes.map((e) => ({ id: e.id, type: e.type, company_id: e.companyId, envelope: JSON.stringify(e) })))
    .execute();
  // Delivered only on commit; a rolled-back change wakes nobody.
  await sql`select pg_notify('outbox_' || current_schema(), '')`.execute(trx);
  return envelopes;
}

export interface OutboxRelaySettings {
  db: AnyDb;
  /** Used for a dedicated LISTEN connection; same database as `db`. */
  databaseUrl: string;
  schema: string;
  nc: NatsConnection;
  subjectPrefix: string;
  logger: Logger;
  pollIntervalMs?: number;
  batchSize?: number;
}

export interface OutboxRelay {
  start(): void;
  stop(): Promise<void>;
  /** Publishes what is pending now; used by tests and at shutdown. */
  flush(): Promise<number>;
}

export function createOutboxRelay(settings: OutboxRelaySettings): OutboxRelay {
  const js = jetstream(settings.nc);
  const batchSize = settings.batchSize ?? 100;
  const pollIntervalMs = settings.pollIntervalMs ?? 1000;
  let running = false;
  let wake: (() => void) | undefined;
  let listener: pg.Client | undefined;
  let loop: Promise<void> | undefined;

  // One batch: lock pending rows (other replicas skip them), publish, delete. A failed publish
  // rolls the batch back so it is retried; the stream de-duplicates what did go out.
  async function publishBatch(): Promise<number> {
    return settings.db.transaction().execute(async (trx) => {
      const rows = await sql<{ seq: number; envelope: EventEnvelope }>`
        select seq, envelope from outbox order by seq limit ${batchSize} for update skip locked`.execute(trx);
      if (rows.rows.length === 0) return 0;
      await Promise.all(
        rows.rows.map((row) =>
          js.publish(subjectFor(settings.subjectPrefix, row.envelope.type), JSON.stringify(row.envelope), {
            msgID: row.envelope.id,
          }),
        ),
      );
      await trx.deleteFrom("outbox").where("seq", "in", rows.rows.map((r) => r.seq)).execute();
      return rows.rows.length;
    });
  }

  async function flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await publishBatch();
      total += published;
      if (published < batchSize) return total;
    }
  }

  async function listen(): Promise<void> {
    try {
      listener = new pg.Client({ connectionString: settings.databaseUrl });
      listener.on("notification", () => wake?.());
      listener.on("error", (error) => settings.logger.warn({ err: error }, "outbox listener failed; polling only"));
      await listener.connect();
      await listener.query(`listen "outbox_${settings.schema}"`);
    } catch (error) {
      settings.logger.warn({ err: error }, "outbox listener unavailable; polling only");
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (running) {
      try {
        await flush();
        failures = 0;
      } catch (error) {
        failures += 1;
        settings.logger.warn({ err: error, failures }, "outbox relay failed to publish; will retry");
      }
      if (!running) break;
      const delay = failures === 0 ? pollIntervalMs : Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = listen().then(run);
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await listener?.end().catch(() => undefined);
    },
    flush,
  };
}
