// Transactional outbox: events are written in the same transaction as the change they
// describe, and a relay publishes them to JetStream after commit with Nats-Msg-Id = event id,
// so an event is published at least once and a re-publish is dropped by the stream.
import { sql, type Kysely, type Transaction } from "kysely";
import type pg from "pg";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { createClient } from "@support/db";
import { backoffDelay, createFailureEpisode, type Logger } from "@support/logging";
import { addScrapeSource, sharedForScrape, type Registry } from "@support/metrics";
import { createEnvelope, subjectFor, type EventEnvelope, type NewEvent } from "./envelope.ts";
import { activeTraceparent, endSpan, startPublishSpan } from "./tracing.ts";

export interface OutboxTable {
  outbox: {
    seq: number;
    id: string;
    type: string;
    company_id: string;
    envelope: EventEnvelope;
    created_at: Date;
    /** W3C traceparent of the transaction that wrote the row (null outside a trace). */
    traceparent: string | null;
  };
}

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A pending event as the relay reads it: the envelope as its JSON text. */
interface OutboxRow {
  seq: number;
  id: string;
  type: string;
  envelope: string;
  traceparent: string | null;
}

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

/**
 * Migration step (after createOutboxTable): the nullable `traceparent` column, the W3C trace
 * context of the transaction that wrote the row, which the relay sends on as a NATS header.
 */
export async function addOutboxTraceparent(db: AnyDb): Promise<void> {
  await db.schema.alterTable("outbox").addColumn("traceparent", "text").execute();
}

/** Reverts addOutboxTraceparent. */
export async function dropOutboxTraceparent(db: AnyDb): Promise<void> {
  await db.schema.alterTable("outbox").dropColumn("traceparent").execute();
}

/**
 * Writes events in the caller's transaction and wakes the relay when it commits: one statement
 * (the rows and the notification together), so an event costs no round trip of its own.
 */
export async function writeEvents(trx: Transaction<any> | AnyDb, events: NewEvent[]): Promise<EventEnvelope<unknown>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (events.length === 0) return [];
  const envelopes = events.map((event) => createEnvelope(event));
  const traceparent = activeTraceparent();
  // One text for any number of events (arrays, unnested in order, so seq follows the list).
  // The notification is delivered only on commit: a rolled-back change wakes nobody.
  await sql`
    with written as (
      insert into outbox (id, type, company_id, envelope, traceparent)
      select e.id, e.type, e.company_id, e.envelope, ${traceparent}::text
      from unnest(${envelopes.map((e) => e.id)}::uuid[], ${envelopes.map((e) => e.type)}::text[],
                  ${envelopes.map((e) => e.companyId)}::uuid[], ${envelopes.map((e) => JSON.stringify(e))}::jsonb[])
        with ordinality as e(id, type, company_id, envelope, n)
      order by e.n
    )
    select pg_notify('outbox_' || current_schema(), '')`.execute(trx);
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
  /** Longest wait for JetStream to acknowledge one publish (default 5 s). */
  publishTimeoutMs?: number;
  /**
   * How long a commit's notification waits for more commits before the relay reads (default
   * 5 ms): under load one read and one batch of publishes serve several transactions.
   */
  wakeDelayMs?: number;
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
  const publishTimeoutMs = settings.publishTimeoutMs ?? 5000;
  const wakeDelayMs = settings.wakeDelayMs ?? 5;
  const publishing = createFailureEpisode(settings.logger, "outbox relay");
  const listening = createFailureEpisode(settings.logger, "outbox listener (LISTEN connection)");
  let running = false;
  let wake: (() => void) | undefined;
  /** A notification arrived since the relay last began to flush. */
  let notified = false;
  let listener: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let stopWaiting: (() => void) | undefined;

  // Batches: read the oldest pending rows, publish them (pipelined, each awaiting its own ack),
  // then delete them in the statement that reads the next batch, until none is left. No
  // transaction stays open while JetStream is waiting (a stalled NATS must not pin a database
  // connection, nor lose it to a Postgres restart halfway). A row published and not deleted (a
  // crash, a lost connection, two replicas reading the same rows) is published again later:
  // the stream drops the repeat because Nats-Msg-Id is the event id. The envelope is read as
  // the JSON text it is published as (not parsed and serialised again); its id and type are
  // columns of their own. Each publish is a producer span in the trace that wrote the row,
  // carried on in the message's `traceparent` header.
  async function readBatch(published: number[]): Promise<OutboxRow[]> {
    // The delete and the select see the same snapshot: the select skips the deleted rows itself.
    const { rows } = await sql<OutboxRow>`
      with deleted as (delete from outbox where seq = any(${published}::bigint[]))
      select seq, id, type, envelope::text as envelope, traceparent from outbox
      where seq <> all(${published}::bigint[])
      order by seq limit ${batchSize}`.execute(settings.db);
    return rows;
  }

  async function publishRows(rows: OutboxRow[]): Promise<void> {
    await Promise.all(
      rows.map(async (row) => {
        const subject = subjectFor(settings.subjectPrefix, row.type);
        const { span, headers } = startPublishSpan(subject, row.id, row.traceparent);
        try {
          await js.publish(subject, row.envelope, { msgID: row.id, timeout: publishTimeoutMs, ...(headers ? { headers } : {}) });
          endSpan(span);
        } catch (error) {
          endSpan(span, error);
          throw error;
        }
      }),
    );
  }

  async function flush(): Promise<number> {
    let total = 0;
    let published: number[] = [];
    for (;;) {
      const rows = await readBatch(published);
      published = [];
      if (rows.length === 0) return total;
      await publishRows(rows);
      published = rows.map((row) => row.seq);
      total += rows.length;
    }
  }

  // The LISTEN connection only makes the relay prompt; polling is the safety net. When the
  // connection is lost (a Postgres restart) it is opened again with backoff.
  async function listen(): Promise<void> {
    if (!running) return;
    // With several hosts in the URL, to the one that takes writes: a standby sends no NOTIFY.
    const client = createClient({
      connectionString: settings.databaseUrl,
      connectionTimeoutMillis: 5000,
      application_name: `outbox-relay-${settings.schema}`,
    });
    listener = client;
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (listener === client) listener = undefined;
      client.end().catch(() => undefined);
      if (!running) return;
      listening.failed(error ?? new Error("the LISTEN connection ended"));
      wake?.(); // a notification may have been missed: look now
      reconnectTimer = setTimeout(() => void listen(), backoffDelay(listening.failures, 1000));
      reconnectTimer.unref();
    };
    client.on("error", onLost);
    client.on("end", () => onLost());
    client.on("notification", () => {
      notified = true;
      wake?.();
    });
    try {
      await client.connect();
      await client.query(`listen "outbox_${settings.schema}"`);
      listening.succeeded();
      // What was committed while nobody listened (since the connection was lost, or before it
      // was first opened) notified no one: look now, not at the next poll.
      wake?.();
    } catch (error) {
      onLost(error as Error);
    }
  }

  async function run(): Promise<void> {
    while (running) {
      notified = false;
      try {
        await flush();
        publishing.succeeded();
      } catch (error) {
        publishing.failed(error);
      }
      if (!running) break;
      const failing = publishing.failures > 0;
      // A notification during the flush may be for a commit its last read did not see yet.
      const delay = failing ? backoffDelay(publishing.failures) : notified ? wakeDelayMs : pollIntervalMs;
      await new Promise<void>((resolve) => {
        let timer = setTimeout(resolve, delay);
        let woken = false;
        // A commit wakes a healthy relay (after wakeDelayMs); a failing one keeps its backoff.
        wake = failing
          ? undefined
          : () => {
              if (woken) return;
              woken = true;
              clearTimeout(timer);
              timer = setTimeout(resolve, wakeDelayMs);
            };
        stopWaiting = () => {
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
      void listen();
      loop = run();
    },
    async stop() {
      running = false;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      stopWaiting?.();
      await loop;
      await listener?.end().catch(() => undefined);
    },
    flush,
  };
}

/**
 * support_outbox_pending and support_outbox_oldest_age_seconds (0 when empty) of the outbox in
 * `db`'s schema, counted at each scrape: they fall back to 0 as soon as the relay has published.
 */
export function registerOutboxMetrics(registry: Registry, db: AnyDb, onError?: (error: unknown) => void): () => void {
  const read = sharedForScrape(async () => {
    const { rows } = await sql<{ pending: number; age: number }>`
      select count(*)::int as pending, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as age from outbox`.execute(db);
    return rows[0] ?? { pending: 0, age: 0 };
  });
  const options = { onError };
  const removePending = addScrapeSource(
    registry,
    { name: "support_outbox_pending", help: "Events written to the outbox and not yet published to JetStream" },
    async () => [{ value: (await read()).pending }],
    options,
  );
  const removeAge = addScrapeSource(
    registry,
    { name: "support_outbox_oldest_age_seconds", help: "Age of the oldest event waiting in the outbox (0 when empty)" },
    async () => [{ value: Math.max(0, (await read()).age) }],
    options,
  );
  return () => {
    removePending();
    removeAge();
  };
}
