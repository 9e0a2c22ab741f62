// Queries on webhooks.deliveries and webhooks.ticket_players. Free functions taking the
// executor (pool or transaction); the rules live in delivery.service.ts and the engine.
import { sql, type Kysely } from "@support/db";
import type { ExpressionBuilder, Selectable } from "kysely";
import type { WebhooksDatabase } from "../database.ts";
import { type Delivery, type DeliveryStatus } from "./delivery.ts";
import type { DeliveryTable } from "./delivery.table.ts";

type Db = Kysely<WebhooksDatabase>;
type Row = Selectable<DeliveryTable>;

function toDelivery(row: Row): Delivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    companyId: row.company_id,
    seq: String(row.seq),
    eventId: row.event_id,
    eventType: row.event_type,
    orderingKey: row.ordering_key,
    payload: row.payload,
    url: row.url,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastResponseStatus: row.last_response_status,
    lastResponseBody: row.last_response_body,
    lastError: row.last_error,
  };
}

export interface NewDelivery {
  id: string;
  webhookId: string;
  companyId: string;
  eventId: string | null;
  eventType: string;
  orderingKey: string;
  ticketId: string | null;
  playerId: string | null;
  payload: string;
  /** A rule's call: where it goes (the webhook's URL otherwise). */
  url?: string | null;
}

/** Inserts pending deliveries, due now; one already made for the same event and type is kept as it is. */
export async function insertDeliveries(db: Db, deliveries: NewDelivery[], now: Date): Promise<Delivery[]> {
  if (deliveries.length === 0) return [];
  const rows = await db
    .insertInto("deliveries")
    .values(
      deliveries.map((d) => ({
        id: d.id,
        webhook_id: d.webhookId,
        company_id: d.companyId,
        event_id: d.eventId,
        event_type: d.eventType,
        ordering_key: d.orderingKey,
        ticket_id: d.ticketId,
        player_id: d.playerId,
        payload: d.payload,
        url: d.url ?? null,
        status: "pending",
        next_attempt_at: now,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.constraint("deliveries_webhook_event_key").doNothing())
    .returningAll()
    .execute();
  return rows.map(toDelivery);
}

export async function findDelivery(db: Db, webhookId: string, id: string): Promise<Delivery | undefined> {
  const row = await db.selectFrom("deliveries").selectAll().where("id", "=", id).where("webhook_id", "=", webhookId).executeTakeFirst();
  return row && toDelivery(row);
}

export async function getDelivery(db: Db, id: string): Promise<Delivery | undefined> {
  const row = await db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toDelivery(row);
}

/** Newest first; `beforeSeq` continues a page. One row more than `limit` tells there is more. */
export async function listDeliveries(db: Db, webhookId: string, options: { limit: number; beforeSeq?: string; status?: DeliveryStatus }): Promise<Delivery[]> {
  let query = db.selectFrom("deliveries").selectAll().where("webhook_id", "=", webhookId);
  if (options.beforeSeq !== undefined) query = query.where("seq", "<", options.beforeSeq);
  if (options.status) query = query.where("status", "=", options.status);
  const rows = await query.orderBy("seq", "desc").limit(options.limit + 1).execute();
  return rows.map(toDelivery);
}

export async function rescheduleNow(db: Db, id: string, now: Date): Promise<Delivery> {
  const row = await db
    .updateTable("deliveries")
    .set({ status: "pending", next_attempt_at: now, locked_until: null })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDelivery(row);
}

/** Gives up the pending deliveries of a subscription (it was disabled). */
export async function failPending(db: Db, webhookId: string, reason: string): Promise<number> {
  const result = await db
    .updateTable("deliveries")
    .set({ status: "failed", next_attempt_at: null, locked_until: null, last_error: reason })
    .where("webhook_id", "=", webhookId)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Claims up to `limit` due deliveries for this replica until `lockedUntil`. Only the head of
 * each (webhook, ordering key) chain is due (strict order), only while fewer than
 * `perWebhook` attempts to its webhook are in flight across replicas. Claims are serialized
 * by a transaction-scoped advisory lock (they are short), and rows are taken with
 * FOR UPDATE SKIP LOCKED so that a row another transaction holds (a retry, a deletion) is left.
 */
export async function claimDue(db: Db, limit: number, perWebhook: number, now: Date, lockedUntil: Date): Promise<Delivery[]> {
  if (limit <= 0) return [];
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.deliveries claim'))`.execute(trx);
    // The attempts in flight per webhook are counted once (few rows: the partial index
    // deliveries_in_flight_idx), not once per candidate row.
    const candidates = await sql<{ id: string; webhook_id: string; in_flight: number }>`
      with in_flight as (
        select webhook_id, count(*)::int as n from deliveries
        where status = 'pending' and locked_until is not null and locked_until > ${now}
        group by webhook_id)
      select d.id, d.webhook_id, coalesce(f.n, 0) as in_flight
      from deliveries d
      left join in_flight f on f.webhook_id = d.webhook_id
      where d.status = 'pending'
        and d.next_attempt_at <= ${now}
        and (d.locked_until is null or d.locked_until <= ${now})
        and coalesce(f.n, 0) < ${perWebhook}
        and not exists (
          select 1 from deliveries e
          where e.webhook_id = d.webhook_id and e.ordering_key = d.ordering_key and e.status = 'pending' and e.seq < d.seq)
      order by d.next_attempt_at, d.seq
      limit ${limit * 4}
      for update of d skip locked`.execute(trx);
    const taken = new Map<string, number>();
    const ids: string[] = [];
    for (const row of candidates.rows) {
      const used = taken.get(row.webhook_id) ?? row.in_flight;
      if (used >= perWebhook) continue;
      taken.set(row.webhook_id, used + 1);
      ids.push(row.id);
      if (ids.length >= limit) break;
    }
    if (ids.length === 0) return [];
    const rows = await trx.updateTable("deliveries").set({ locked_until: lockedUntil }).where("id", "in", ids).returningAll().execute();
    return rows.map(toDelivery).sort((a, b) => Number(a.seq) - Number(b.seq));
  });
}

export interface AttemptRecord {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
  lastError: string | null;
}

/** Records an attempt's outcome, unless the delivery went (deleted, erased) or was rescheduled meanwhile. */
export async function recordAttempt(db: Db, id: string, lockedUntil: Date, record: AttemptRecord): Promise<boolean> {
  const result = await db
    .updateTable("deliveries")
    .set({
      status: record.status,
      attempts: record.attempts,
      next_attempt_at: record.nextAttemptAt,
      locked_until: null,
      last_attempt_at: record.lastAttemptAt,
      last_response_status: record.lastResponseStatus,
      last_response_body: record.lastResponseBody,
      last_error: record.lastError,
    })
    .where("id", "=", id)
    .where("locked_until", "=", lockedUntil)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a claim back without an outcome (the attempt was cut short by a shutdown). */
export async function releaseClaim(db: Db, id: string, lockedUntil: Date): Promise<void> {
  await db.updateTable("deliveries").set({ locked_until: null }).where("id", "=", id).where("locked_until", "=", lockedUntil).execute();
}

export async function rememberTicketPlayer(db: Db, companyId: string, ticketId: string, playerId: string): Promise<void> {
  await db.insertInto("ticket_players").values({ ticket_id: ticketId, company_id: companyId, player_id: playerId }).onConflict((oc) => oc.column("ticket_id").doNothing()).execute();
}

export async function ticketsOfPlayer(db: Db, companyId: string, playerId: string): Promise<string[]> {
  const rows = await db.selectFrom("ticket_players").select("ticket_id").where("company_id", "=", companyId).where("player_id", "=", playerId).execute();
  return rows.map((row) => row.ticket_id);
}

export async function forgetPlayerTickets(db: Db, companyId: string, playerId: string): Promise<void> {
  await db.deleteFrom("ticket_players").where("company_id", "=", companyId).where("player_id", "=", playerId).execute();
}

/**
 * Erasure of the deliveries about some tickets or a player: pending ones are deleted, the
 * others keep their ids, type and state without payload or answer. The erasure notices
 * themselves (ticket.deleted, player.deleted) carry ids only and are kept.
 */
export async function redactDeliveries(db: Db, companyId: string, about: { ticketIds: string[]; playerId?: string }): Promise<{ deleted: number; redacted: number }> {
  if (about.ticketIds.length === 0 && about.playerId === undefined) return { deleted: 0, redacted: 0 };
  const scope = (eb: ExpressionBuilder<WebhooksDatabase, "deliveries">) => {
    const conditions = [];
    if (about.ticketIds.length > 0) conditions.push(eb("ticket_id", "in", about.ticketIds));
    if (about.playerId !== undefined) conditions.push(eb("player_id", "=", about.playerId));
    return eb.or(conditions);
  };
  const notices = ["ticket.deleted", "player.deleted"];
  const deleted = await db
    .deleteFrom("deliveries")
    .where("company_id", "=", companyId)
    .where("status", "=", "pending")
    .where("event_type", "not in", notices)
    .where(scope)
    .executeTakeFirst();
  const redacted = await db
    .updateTable("deliveries")
    // The payload keeps its shape ({type, timestamp, data}); data becomes {"redacted": true}.
    .set({
      payload: sql<string>`json_build_object('type', event_type, 'timestamp', payload::json ->> 'timestamp', 'data', json_build_object('redacted', true))::text`,
      last_response_body: null,
    })
    .where("company_id", "=", companyId)
    .where("event_type", "not in", notices)
    .where(sql<boolean>`(payload::jsonb -> 'data' -> 'redacted') is distinct from 'true'::jsonb`)
    .where(scope)
    .executeTakeFirst();
  return { deleted: Number(deleted.numDeletedRows), redacted: Number(redacted.numUpdatedRows) };
}

/** Deletes up to `limit` finished deliveries created before `cutoff`; rows another replica holds are skipped. */
export async function deleteFinishedBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom("deliveries")
    .where("id", "in", (eb) =>
      eb.selectFrom("deliveries").select("id").where("status", "<>", "pending").where("created_at", "<", cutoff).limit(limit).forUpdate().skipLocked(),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The backlog for metrics: pending deliveries and the age of the oldest one due. */
export async function pendingBacklog(db: Db, now: Date): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const row = await db
    .selectFrom("deliveries")
    .select((eb) => [eb.fn.countAll<string>().as("pending"), eb.fn.min("created_at").as("oldest")])
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  const oldest = row.oldest ? new Date(row.oldest as Date) : null;
  return { pending: Number(row.pending), oldestAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0 };
}
