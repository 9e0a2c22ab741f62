// webhooks.v1 RPCs mapped onto the use cases. Handlers only translate messages: rules live in
// webhooks/ and deliveries/, SQL in the repositories.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { idempotent, type ResponseSeal } from "@support/idempotency";
import { RuleTargetsService, WebhooksService, type DeliverySchema, type RuleCallSecretSchema, type WebhookSchema } from "@support/proto";
import { listDeliveries, retryDelivery, sendTestEvent } from "./deliveries/delivery.service.ts";
import type { Delivery } from "./deliveries/delivery.ts";
import { checkRuleTargets, getRuleCallSecret, rotateRuleCallSecret, type RuleCallSecret } from "./webhooks/rule-calls.ts";
import { createWebhook, deleteWebhook, getWebhook, listCompanyWebhooks, rotateSecret, updateWebhook, type WebhooksContext } from "./webhooks/webhook.service.ts";
import { activePreviousExpiry, type Webhook } from "./webhooks/webhook.ts";

export function webhookMessage(webhook: Webhook, now = new Date()): MessageInitShape<typeof WebhookSchema> {
  const previousExpiry = activePreviousExpiry(webhook, now);
  return {
    id: webhook.id,
    companyId: webhook.companyId,
    url: webhook.url,
    description: webhook.description,
    eventTypes: webhook.eventTypes,
    gameIds: webhook.gameIds,
    enabled: webhook.enabled,
    disabledReason: webhook.enabled ? undefined : (webhook.disabledReason ?? undefined),
    createdAt: timestampFromDate(webhook.createdAt),
    updatedAt: timestampFromDate(webhook.updatedAt),
    source: webhook.source,
    previousSecretExpiresAt: previousExpiry ? timestampFromDate(previousExpiry) : undefined,
  };
}

export function deliveryMessage(delivery: Delivery): MessageInitShape<typeof DeliverySchema> {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    eventType: delivery.eventType,
    eventId: delivery.eventId ?? undefined,
    status: delivery.status,
    attempts: delivery.attempts,
    createdAt: timestampFromDate(delivery.createdAt),
    nextAttemptAt: delivery.status === "pending" && delivery.nextAttemptAt ? timestampFromDate(delivery.nextAttemptAt) : undefined,
    lastAttemptAt: delivery.lastAttemptAt ? timestampFromDate(delivery.lastAttemptAt) : undefined,
    lastResponseStatus: delivery.lastResponseStatus ?? undefined,
    lastResponseBody: delivery.lastResponseBody ?? undefined,
    lastError: delivery.lastError ?? undefined,
    payload: delivery.payload,
  };
}

function ruleCallSecretMessage(secret: RuleCallSecret): MessageInitShape<typeof RuleCallSecretSchema> {
  return {
    secret: secret.secret,
    previousSecretExpiresAt: secret.previousSecretExpiresAt ? timestampFromDate(secret.previousSecretExpiresAt) : undefined,
    updatedAt: timestampFromDate(secret.updatedAt),
  };
}

/** The acting admin and their address, when the gateway's settings routes make the call. */
const originOf = (req: { actorUserId?: string; clientAddress?: string }) => ({ actorUserId: req.actorUserId, clientAddress: req.clientAddress });

export function registerRoutes(router: ConnectRouter, ctx: WebhooksContext): void {
  // The answers that carry a signing secret are recorded for their Idempotency-Key encrypted,
  // like the secrets themselves: nothing holds a secret in plaintext at rest.
  const sealed: { seal: ResponseSeal } = { seal: { seal: (bytes) => ctx.box.sealBytes(bytes), open: (bytes) => ctx.box.openBytes(bytes) } };
  // With an Idempotency-Key, each write runs in the transaction that records the key.
  router.service(WebhooksService, {
    createWebhook: (req, context) =>
      idempotent(
        ctx.db,
        req,
        context,
        async (db) => {
          const { webhook, secret } = await createWebhook({ ...ctx, db }, req.companyId, {
            url: req.url,
            description: req.description,
            eventTypes: req.eventTypes,
            gameIds: req.gameIds,
            enabled: req.enabled ?? true,
          }, originOf(req));
          return { webhook: webhookMessage(webhook), secret };
        },
        sealed,
      ),

    listWebhooks: async (req) => ({ webhooks: (await listCompanyWebhooks(ctx, req.companyId)).map((webhook) => webhookMessage(webhook)) }),

    getWebhook: async (req) => ({ webhook: webhookMessage(await getWebhook(ctx, req.companyId, req.webhookId)) }),

    updateWebhook: async (req) => ({
      webhook: webhookMessage(
        await updateWebhook(ctx, req.companyId, req.webhookId, {
          url: req.url,
          description: req.description,
          eventTypes: req.setEventTypes ? req.eventTypes : undefined,
          gameIds: req.setGameIds ? req.gameIds : undefined,
          enabled: req.enabled,
        }, originOf(req)),
      ),
    }),

    deleteWebhook: (req, context) =>
      idempotent(ctx.db, req, context, async (db) => {
        await deleteWebhook({ ...ctx, db }, req.companyId, req.webhookId, originOf(req));
        return {};
      }),

    rotateWebhookSecret: (req, context) =>
      idempotent(
        ctx.db,
        req,
        context,
        async (db) => {
          const { webhook, secret } = await rotateSecret({ ...ctx, db }, req.companyId, req.webhookId, new Date(), originOf(req));
          return { webhook: webhookMessage(webhook), secret };
        },
        sealed,
      ),

    listDeliveries: async (req) => {
      const page = await listDeliveries(ctx, req.companyId, req.webhookId, { limit: req.limit, cursor: req.cursor, status: req.status });
      return { deliveries: page.deliveries.map(deliveryMessage), nextCursor: page.nextCursor };
    },

    retryDelivery: (req, context) =>
      idempotent(ctx.db, req, context, async (db) => ({
        delivery: deliveryMessage(await retryDelivery({ ...ctx, db }, req.companyId, req.webhookId, req.deliveryId, originOf(req))),
      })),

    sendTestEvent: (req, context) =>
      idempotent(ctx.db, req, context, async (db) => ({ delivery: deliveryMessage(await sendTestEvent({ ...ctx, db }, req.companyId, req.webhookId, new Date(), originOf(req))) })),

    getRuleCallSecret: async (req) => ({ secret: ruleCallSecretMessage(await getRuleCallSecret(ctx, req.companyId)) }),

    rotateRuleCallSecret: async (req) => ({ secret: ruleCallSecretMessage(await rotateRuleCallSecret(ctx, req.companyId, new Date(), originOf(req))) }),
  });

  router.service(RuleTargetsService, {
    checkRuleTargets: async (req) => ({ problems: await checkRuleTargets(ctx, req.urls) }),
  });
}
