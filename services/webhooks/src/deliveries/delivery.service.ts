// Delivery use cases: the fan-out of a domain event to the subscriptions that asked for it
// (idempotent per event), erasure, the delivery log, retries and test events.
import { randomUUID } from "node:crypto";
import { writeEvents } from "@support/bus";
import { newEvent, type DomainEvent } from "@support/events";
import { isUuid, notFound, validationError } from "@support/errors";
import type { WebhooksDatabase } from "../database.ts";
import type { Kysely } from "@support/db";
import { findWebhook, listEnabledSubscriptions, updateWebhook } from "../webhooks/webhook.repository.ts";
import { inTransaction, recordAudit, type AuditOrigin } from "../webhooks/webhook.audit.ts";
import { queueRuleCall } from "../webhooks/rule-calls.ts";
import { getWebhook, type WebhooksContext } from "../webhooks/webhook.service.ts";
import { wants, type Webhook } from "../webhooks/webhook.ts";
import {
  failPending, findDelivery, forgetPlayerTickets, insertDeliveries, listDeliveries as listRows, redactDeliveries, rememberTicketPlayer, rescheduleNow, ticketsOfPlayer,
  type NewDelivery,
} from "./delivery.repository.ts";
import { decodeCursor, deliveryStatuses, encodeCursor, type Delivery, type DeliveryStatus } from "./delivery.ts";
import { payloadOf, publicEventsOf, type PublicEvent } from "./public-event.ts";

type Db = Kysely<WebhooksDatabase>;

/** Deletes and redacts what the log holds about an erased player's tickets (and the player). */
async function erase(trx: Db, companyId: string, about: { ticketIds: string[]; playerId?: string }) {
  return redactDeliveries(trx, companyId, about);
}

/** The domain events that erase what the log holds about a ticket or a player. */
type ErasingEvent = DomainEvent<"tickets.ticket.deleted" | "players.deletion.started" | "players.player.deleted">;
const erasing = new Set<string>(["tickets.ticket.deleted", "players.deletion.started", "players.player.deleted"] satisfies ErasingEvent["type"][]);
const isErasing = (event: DomainEvent): event is ErasingEvent => erasing.has(event.type);

/**
 * Handles one domain event: erasure first when it announces one, then a pending delivery for
 * each enabled subscription of the company that wants each public event it makes. A domain
 * event seen again makes nothing new (unique webhook, event and type).
 */
export async function fanOut(ctx: Pick<WebhooksContext, "db" | "box" | "wake">, event: DomainEvent): Promise<number> {
  if (!isUuid(event.companyId) || !isUuid(event.id)) return 0;
  const publicEvents = publicEventsOf(event);
  let inserted: number;
  if (isErasing(event)) {
    // The redaction and the deliveries announcing it are one unit of work.
    inserted = await ctx.db.transaction().execute(async (trx) => {
      await eraseFor(trx, event);
      return deliver(trx, event, publicEvents);
    });
  } else {
    // Every other event is at most three statements (remember a new ticket's player, read the
    // subscriptions, insert the deliveries), each idempotent on its own: a crash between them is
    // repaired by the event's redelivery, so they need no transaction. An event of no interest
    // (a player created, a session opened) touches nothing.
    if (event.type === "tickets.ticket.created") await rememberCreatedTicket(ctx.db, event);
    inserted = event.type === "tickets.rule.webhook_requested" ? await queueRuleCall(ctx, event) : await deliver(ctx.db, event, publicEvents);
  }
  if (inserted > 0) ctx.wake();
  return inserted;
}

/** Remembers whose ticket a new one is, so that the player's erasure finds it later. */
async function rememberCreatedTicket(db: Db, event: DomainEvent<"tickets.ticket.created">): Promise<void> {
  const { id: ticketId, servicePlayerId: playerId } = event.data;
  if (playerId !== null) await rememberTicketPlayer(db, event.companyId, ticketId, playerId);
}

async function eraseFor(trx: Db, event: ErasingEvent): Promise<void> {
  if (event.type === "tickets.ticket.deleted") {
    await erase(trx, event.companyId, { ticketIds: [event.data.ticketId] });
    return;
  }
  const { playerId } = event.data;
  await erase(trx, event.companyId, { ticketIds: await ticketsOfPlayer(trx, event.companyId, playerId), playerId });
  // The erasure is complete: nothing of the player is left to redact later.
  if (event.type === "players.player.deleted") await forgetPlayerTickets(trx, event.companyId, playerId);
}

/** Inserts a pending delivery per subscription that wants each public event; returns how many are new. */
async function deliver(db: Db, event: DomainEvent, publicEvents: PublicEvent[]): Promise<number> {
  if (publicEvents.length === 0) return 0;
  const subscriptions = await listEnabledSubscriptions(db, event.companyId);
  const rows: NewDelivery[] = [];
  for (const publicEvent of publicEvents) {
    for (const subscription of subscriptions) {
      if (!wants(subscription, publicEvent.type, publicEvent.gameId)) continue;
      rows.push({
        id: randomUUID(),
        webhookId: subscription.id,
        companyId: event.companyId,
        eventId: event.id,
        eventType: publicEvent.type,
        orderingKey: publicEvent.orderingKey,
        ticketId: publicEvent.ticketId && isUuid(publicEvent.ticketId) ? publicEvent.ticketId : null,
        playerId: publicEvent.playerId && isUuid(publicEvent.playerId) ? publicEvent.playerId : null,
        payload: payloadOf(publicEvent.type, event.occurredAt, publicEvent.data),
      });
    }
  }
  return (await insertDeliveries(db, rows, new Date())).length;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  nextCursor?: string;
}

export async function listDeliveries(
  ctx: WebhooksContext,
  companyId: string,
  webhookId: string,
  options: { limit?: number; cursor?: string; status?: string },
): Promise<DeliveryPage> {
  // The options are the query parameters of GET /webhooks/{webhookId}/deliveries: their
  // issues name them `/query/<name>`, like every query error of the API.
  const issues = [];
  const limit = options.limit === undefined || options.limit === 0 ? 20 : options.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) issues.push({ path: "/query/limit", message: "must be an integer from 1 to 100" });
  const beforeSeq = options.cursor !== undefined ? decodeCursor(options.cursor) : undefined;
  if (options.cursor !== undefined && beforeSeq === undefined) issues.push({ path: "/query/cursor", message: "is not a cursor of this list" });
  if (options.status !== undefined && !deliveryStatuses.includes(options.status as DeliveryStatus)) {
    issues.push({ path: "/query/status", message: `must be one of ${deliveryStatuses.join(", ")}` });
  }
  if (issues.length > 0) throw validationError(issues);
  const webhook = await getWebhook(ctx, companyId, webhookId);
  const rows = await listRows(ctx.db, webhook.id, { limit, beforeSeq, status: options.status as DeliveryStatus | undefined });
  const page = rows.slice(0, limit);
  return { deliveries: page, nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.seq) : undefined };
}

export async function retryDelivery(ctx: WebhooksContext, companyId: string, webhookId: string, deliveryId: string, origin?: AuditOrigin): Promise<Delivery> {
  const webhook = await getWebhook(ctx, companyId, webhookId);
  const delivery = await inTransaction(ctx.db, async (trx) => {
    const found = isUuid(deliveryId) ? await findDelivery(trx, webhook.id, deliveryId) : undefined;
    if (!found) throw notFound("delivery not found");
    const rescheduled = await rescheduleNow(trx, found.id, new Date());
    await recordAudit(trx, origin, {
      action: "webhook.delivery_retried",
      webhook,
      detail: { url: webhook.url, deliveryId: found.id, eventType: found.eventType, previousStatus: found.status, attempts: found.attempts },
    });
    return rescheduled;
  });
  ctx.wake();
  return delivery;
}

export async function sendTestEvent(ctx: WebhooksContext, companyId: string, webhookId: string, now = new Date(), origin?: AuditOrigin): Promise<Delivery> {
  const webhook = await getWebhook(ctx, companyId, webhookId);
  const id = randomUUID();
  const data = { webhookId: webhook.id, message: "This is a test event sent from the support platform." };
  const [delivery] = await inTransaction(ctx.db, async (trx) => {
    const inserted = await insertDeliveries(
      trx,
      [{ id, webhookId: webhook.id, companyId, eventId: null, eventType: "webhook.test", orderingKey: `test:${id}`, ticketId: null, playerId: null, payload: payloadOf("webhook.test", now.toISOString(), data) }],
      now,
    );
    await recordAudit(trx, origin, { action: "webhook.test_sent", webhook, detail: { url: webhook.url, deliveryId: id } }, now);
    return inserted;
  });
  ctx.wake();
  return delivery!;
}

/**
 * Disables a subscription whose deliveries have all failed for too long: pending deliveries
 * are given up, `webhooks.webhook.disabled` goes through the outbox, and a `webhook.disabled`
 * public event is recorded in its log (and sent, in case the endpoint comes back).
 */
export async function disableFailing(db: Db, webhook: Webhook, reason: string, now: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const locked = await findWebhook(trx, webhook.companyId, webhook.id, { lock: true });
    if (!locked || !locked.enabled) return false;
    const disabled = await updateWebhook(trx, locked.id, { enabled: false, disabledReason: reason }, now);
    await failPending(trx, locked.id, "subscription disabled");
    const data = { webhookId: locked.id, url: locked.url, reason, failingSince: locked.failingSince?.toISOString() ?? null };
    const id = randomUUID();
    await insertDeliveries(
      trx,
      [{ id, webhookId: locked.id, companyId: locked.companyId, eventId: null, eventType: "webhook.disabled", orderingKey: `webhook:${locked.id}`, ticketId: null, playerId: null, payload: payloadOf("webhook.disabled", now.toISOString(), data) }],
      now,
    );
    await writeEvents(trx, [newEvent("webhooks.webhook.disabled", locked.companyId, { ...data, disabledAt: disabled.updatedAt.toISOString() })]);
    return true;
  });
}
