// /agent-api/settings/webhooks...: the company's webhook subscriptions and their delivery logs,
// for its admins. The webhooks service owns them and answers these routes with the same RPCs as
// the public REST API (routes/webhooks.ts, mappings/webhooks.ts): the same rules, the same
// answers. The gateway checks that the user is an admin (agents get 403 before anything is
// read) and passes the admin and the client address along, so that the webhooks service records
// each change in the company's audit log (webhooks.audit.recorded, recorded by content).
import type { Context } from "koa";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { WebhooksClient } from "../clients.ts";
import { toDeliveryDto, toListDeliveriesRequest, toUpdateWebhookRequest, toWebhookDto, toWebhookWithSecretDto } from "../mappings/webhooks.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsWebhooksRoutesDeps {
  webhooks: WebhooksClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

export function registerAgentSettingsWebhooksRoutes(api: ApiRoutes, deps: AgentSettingsWebhooksRoutesDeps): void {
  const { webhooks, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  const writeWithBody = [...write, jsonBody(deps.bodyLimitBytes)];
  const companyOf = (ctx: Context) => (ctx.state as AgentSessionState).agentSession.companyId;
  /** The company, and the admin acting and from where (for the audit entry). */
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actorUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };

  api.operation<"listAgentSettingsWebhooks", AgentSessionState>(
    "listAgentSettingsWebhooks",
    async (ctx) => {
      const response = await webhooks.listWebhooks({ companyId: companyOf(ctx) });
      respond(ctx, 200, { webhooks: response.webhooks.map(toWebhookDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsWebhook", AgentSessionState>(
    "createAgentSettingsWebhook",
    async (ctx) => {
      const { body } = ctx.state.validated;
      const response = await webhooks.createWebhook({
        ...changeOf(ctx),
        url: body.url,
        description: body.description ?? "",
        eventTypes: body.eventTypes,
        gameIds: body.gameIds ?? [],
        enabled: body.enabled ?? true,
      });
      respond(ctx, 201, toWebhookWithSecretDto(response));
    },
    { before: writeWithBody },
  );

  api.operation<"updateAgentSettingsWebhook", AgentSessionState>(
    "updateAgentSettingsWebhook",
    async (ctx) => {
      const { params, body } = ctx.state.validated;
      const change = changeOf(ctx);
      const response = await webhooks.updateWebhook({
        ...toUpdateWebhookRequest(change.companyId, params.webhookId, body),
        actorUserId: change.actorUserId,
        clientAddress: change.clientAddress,
      });
      respond(ctx, 200, toWebhookDto(response.webhook));
    },
    { before: writeWithBody },
  );

  api.operation<"deleteAgentSettingsWebhook", AgentSessionState>(
    "deleteAgentSettingsWebhook",
    async (ctx) => {
      await webhooks.deleteWebhook({ ...changeOf(ctx), webhookId: ctx.state.validated.params.webhookId });
      ctx.status = 204;
    },
    { before: write },
  );

  api.operation<"rotateAgentSettingsWebhookSecret", AgentSessionState>(
    "rotateAgentSettingsWebhookSecret",
    async (ctx) => {
      const response = await webhooks.rotateWebhookSecret({ ...changeOf(ctx), webhookId: ctx.state.validated.params.webhookId });
      respond(ctx, 200, toWebhookWithSecretDto(response));
    },
    { before: write },
  );

  api.operation<"sendAgentSettingsWebhookTestEvent", AgentSessionState>(
    "sendAgentSettingsWebhookTestEvent",
    async (ctx) => {
      const response = await webhooks.sendTestEvent({ ...changeOf(ctx), webhookId: ctx.state.validated.params.webhookId });
      respond(ctx, 201, toDeliveryDto(response.delivery));
    },
    { before: write },
  );

  api.operation<"listAgentSettingsWebhookDeliveries", AgentSessionState>(
    "listAgentSettingsWebhookDeliveries",
    async (ctx) => {
      const { params, query } = ctx.state.validated;
      const response = await webhooks.listDeliveries(toListDeliveriesRequest(companyOf(ctx), params.webhookId, query));
      respond(ctx, 200, { deliveries: response.deliveries.map(toDeliveryDto), pagination: { cursor: response.nextCursor ?? null } });
    },
    { before: read },
  );

  api.operation<"retryAgentSettingsWebhookDelivery", AgentSessionState>(
    "retryAgentSettingsWebhookDelivery",
    async (ctx) => {
      const { params } = ctx.state.validated;
      const response = await webhooks.retryDelivery({ ...changeOf(ctx), webhookId: params.webhookId, deliveryId: params.deliveryId });
      respond(ctx, 200, toDeliveryDto(response.delivery));
    },
    { before: write },
  );
}
