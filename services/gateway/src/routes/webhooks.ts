// Webhooks: subscriptions, their signing secrets and their delivery log. The requests are
// checked against the OpenAPI document before these handlers run; every rule (URL safety,
// known event types, the company's games, cursors) lives in the webhooks service, which
// answers a subscription of another company as not found. The mappings are in
// mappings/webhooks.ts.
import type { WebhooksClient } from "../clients.ts";
import { toDeliveryDto, toListDeliveriesRequest, toUpdateWebhookRequest, toWebhookDto, toWebhookWithSecretDto } from "../mappings/webhooks.ts";
import { respond, type ApiRoutes } from "./api.ts";

export function registerWebhookRoutes(api: ApiRoutes, deps: { webhooks: WebhooksClient }): void {
  const { webhooks } = deps;

  api.operation("listWebhooks", async (ctx) => {
    const response = await webhooks.listWebhooks({ companyId: ctx.state.companyId });
    respond(ctx, 200, { webhooks: response.webhooks.map(toWebhookDto) });
  });

  api.operation("createWebhook", async (ctx) => {
    const { body } = ctx.state.validated;
    const response = await webhooks.createWebhook({
      companyId: ctx.state.companyId,
      url: body.url,
      description: body.description ?? "",
      eventTypes: body.eventTypes,
      gameIds: body.gameIds ?? [],
      enabled: body.enabled ?? true,
    });
    respond(ctx, 200, toWebhookWithSecretDto(response));
  });

  api.operation("getWebhook", async (ctx) => {
    const response = await webhooks.getWebhook({ companyId: ctx.state.companyId, webhookId: ctx.state.validated.params.webhookId });
    respond(ctx, 200, toWebhookDto(response.webhook));
  });

  api.operation("updateWebhook", async (ctx) => {
    const { params, body } = ctx.state.validated;
    const response = await webhooks.updateWebhook(toUpdateWebhookRequest(ctx.state.companyId, params.webhookId, body));
    respond(ctx, 200, toWebhookDto(response.webhook));
  });

  api.operation("deleteWebhook", async (ctx) => {
    await webhooks.deleteWebhook({ companyId: ctx.state.companyId, webhookId: ctx.state.validated.params.webhookId });
    respond(ctx, 200, { success: true });
  });

  api.operation("rotateWebhookSecret", async (ctx) => {
    const response = await webhooks.rotateWebhookSecret({ companyId: ctx.state.companyId, webhookId: ctx.state.validated.params.webhookId });
    respond(ctx, 200, toWebhookWithSecretDto(response));
  });

  api.operation("listWebhookDeliveries", async (ctx) => {
    const { params, query } = ctx.state.validated;
    const response = await webhooks.listDeliveries(toListDeliveriesRequest(ctx.state.companyId, params.webhookId, query));
    respond(ctx, 200, { deliveries: response.deliveries.map(toDeliveryDto), pagination: { cursor: response.nextCursor ?? null } });
  });

  api.operation("retryWebhookDelivery", async (ctx) => {
    const { params } = ctx.state.validated;
    const response = await webhooks.retryDelivery({ companyId: ctx.state.companyId, webhookId: params.webhookId, deliveryId: params.deliveryId });
    respond(ctx, 200, toDeliveryDto(response.delivery));
  });

  api.operation("sendWebhookTestEvent", async (ctx) => {
    const response = await webhooks.sendTestEvent({ companyId: ctx.state.companyId, webhookId: ctx.state.validated.params.webhookId });
    respond(ctx, 200, toDeliveryDto(response.delivery));
  });
}
