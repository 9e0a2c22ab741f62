// Webhooks between REST and webhooks.v1: the document's JSON to webhooks.v1 requests, and
// webhooks.v1 answers to the document's JSON (every field present, null where empty).
//
// webhooks.v1 carries event types, statuses and sources as strings; the webhooks service only
// stores values the document allows (it refuses unknown event types), so the `as` casts below
// narrow them to the document's types without checking them again.
import type { Delivery, ListDeliveriesRequestSchema, UpdateWebhookRequestSchema, Webhook } from "@support/proto";
import type { Schemas, Validated } from "../openapi/types.ts";
import type { Init } from "./init.ts";
import { isoTimestamp, isoTimestampOrNull } from "./timestamps.ts";

/** A subscription as the document shows it (never its secret). */
export function toWebhookDto(webhook: Webhook | undefined): Schemas["Webhook"] {
  if (webhook === undefined) throw new Error("webhooks returned no webhook");
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description === "" ? null : webhook.description,
    eventTypes: webhook.eventTypes as Schemas["WebhookEventType"][],
    gameIds: webhook.gameIds,
    enabled: webhook.enabled,
    disabledReason: webhook.disabledReason ?? null,
    source: webhook.source as Schemas["Webhook"]["source"],
    createdAt: isoTimestamp(webhook.createdAt, "webhooks", "webhook createdAt"),
    updatedAt: isoTimestamp(webhook.updatedAt, "webhooks", "webhook updatedAt"),
    previousSecretExpiresAt: isoTimestampOrNull(webhook.previousSecretExpiresAt),
  };
}

/** A subscription with the secret an answer shows once (creation, rotation). */
export function toWebhookWithSecretDto(response: { webhook?: Webhook; secret: string }): Schemas["WebhookWithSecret"] {
  return { webhook: toWebhookDto(response.webhook), secret: response.secret };
}

/** A delivery of the log; its payload is the JSON text that was sent, shown as JSON. */
export function toDeliveryDto(delivery: Delivery | undefined): Schemas["Delivery"] {
  if (delivery === undefined) throw new Error("webhooks returned no delivery");
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventType: delivery.eventType as Schemas["WebhookEventType"],
    eventId: delivery.eventId ?? null,
    status: delivery.status as Schemas["DeliveryStatus"],
    attempts: delivery.attempts,
    createdAt: isoTimestamp(delivery.createdAt, "webhooks", "delivery createdAt"),
    nextAttemptAt: isoTimestampOrNull(delivery.nextAttemptAt),
    lastAttemptAt: isoTimestampOrNull(delivery.lastAttemptAt),
    lastResponseStatus: delivery.lastResponseStatus ?? null,
    lastResponseBody: delivery.lastResponseBody ?? null,
    lastError: delivery.lastError ?? null,
    payload: JSON.parse(delivery.payload) as Schemas["Delivery"]["payload"],
  };
}

/** PATCH body to UpdateWebhook: absent properties stay absent, lists are replaced only when given. */
export function toUpdateWebhookRequest(companyId: string, webhookId: string, body: Validated<"updateWebhook">["body"]): Init<typeof UpdateWebhookRequestSchema> {
  return {
    companyId,
    webhookId,
    url: body.url,
    description: body.description,
    setEventTypes: body.eventTypes !== undefined,
    eventTypes: body.eventTypes ?? [],
    setGameIds: body.gameIds !== undefined,
    gameIds: body.gameIds ?? [],
    enabled: body.enabled,
  };
}

export function toListDeliveriesRequest(companyId: string, webhookId: string, query: Validated<"listWebhookDeliveries">["query"]): Init<typeof ListDeliveriesRequestSchema> {
  return { companyId, webhookId, limit: query.limit ?? 20, cursor: query.cursor, status: query.status };
}
