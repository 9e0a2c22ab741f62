// Transactional outbox: events are written in the same transaction as the change they
// describe, and a relay publishes them to JetStream after commit with Nats-Msg-Id = event id,
// so an event is published at least once and a re-publish is dropped by the stream.
import { sql, type Kysely, type Transaction } from "kysely";
import pg from "pg";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
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

/** Writes events in the caller's transaction and wakes the relay when it commits. */
export async function writeEvents(trx: Transaction<any> | AnyDb, events: NewEvent[]): Promise<EventEnvelope[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (events.length === 0) return [];
  const envelopes = events.map((event) => createEnvelope(event));
  const traceparent = activeTraceparent();
  await trx
    .insertInto("outbox")
    .values(envelopes.map((e) => ({ id: e.id, type: e.type, company_id: e.companyId, envelope: JSON.stringify(e), traceparent })))
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
  /** Longest wait for JetStream to acknowledge one publish (default 5 s). */
  publishTimeoutMs?: number;
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
  const publishing = createFailureEpisode(settings.logger, "outbox relay");
  const listening = createFailureEpisode(settings.logger, "outbox listener (LISTEN connection)");
  let running = false;
  let wake: (() => void) | undefined;
  let listener: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let stopWaiting: (() => void) | undefined;

  // One batch: read the oldest pending rows, publish them, then delete them in one short
  // statement. No transaction stays open while JetStream is waiting (a stalled NATS must not
  // pin a database connection, nor lose it to a Postgres restart halfway). A row published and
  // not deleted (a crash, a lost connection, two replicas reading the same rows) is published
  // again later: the stream drops the repeat because Nats-Msg-Id is the event id.
  // Each publish is a producer span in the trace that wrote the row, carried on in the
  // message's `traceparent` header.
  async function publishBatch(): Promise<number> {
    const rows = await sql<{ seq: number; envelope: EventEnvelope; traceparent: string | null }>`
      select seq, envelope, traceparent from outbox order by seq limit ${batchSize}`.execute(settings.db);
    if (rows.rows.length === 0) return 0;
    await Promise.all(
      rows.rows.map(async (row) => {
        const subject = subjectFor(settings.subjectPrefix, row.envelope.type);
        const { span, headers } = startPublishSpan(subject, row.envelope.id, row.traceparent);
        try {
          await js.publish(subject, JSON.stringify(row.envelope), { msgID: row.envelope.id, timeout: publishTimeoutMs, ...(headers ? { headers } : {}) });
          endSpan(span);
        } catch (error) {
          endSpan(span, error);
          throw error;
        }
      }),
    );
    await settings.db.deleteFrom("outbox").where("seq", "in", rows.rows.map((r) => r.seq)).execute();
    return rows.rows.length;
  }

  async function flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await publishBatch();
      total += published;
      if (published < batchSize) return total;
    }
  }

  // The LISTEN connection only makes the relay prompt; polling is the safety net. When the
  // connection is lost (a Postgres restart) it is opened again with backoff.
  async function listen(): Promise<void> {
    if (!running) return;
    const client = new pg.Client({
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
    client.on("notification", () => wake?.());
    try {
      await client.connect();
      await client.query(`listen "outbox_${settings.schema}"`);
      listening.succeeded();
    } catch (error) {
      onLost(error as Error);
    }
  }

  async function run(): Promise<void> {
    while (running) {
      try {
        await flush();
        publishing.succeeded();
      } catch (error) {
        publishing.failed(error);
      }
      if (!running) break;
      const failing = publishing.failures > 0;
      const delay = failing ? backoffDelay(publishing.failures) : pollIntervalMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        // A commit wakes a healthy relay at once; a failing one keeps its backoff.
        wake = failing
          ? undefined
          : () => {
              clearTimeout(timer);
              resolve();
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
