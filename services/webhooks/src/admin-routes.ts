// webhooks.v1.WebhooksAdminService (the operators' admin tool, tenant files) mapped onto the
// apply use case. Every call needs the admin token (ADMIN_TOKEN): the gate refuses it before
// the body is read.
import type { ConnectRouter } from "@connectrpc/connect";
import { WebhooksAdminService } from "@support/proto";
import { adminTokenGate } from "@support/rpc";
import { webhookMessage } from "./routes.ts";
import { applyWebhooks, type WebhooksContext } from "./webhooks/webhook.service.ts";

export function registerAdminRoutes(router: ConnectRouter, ctx: WebhooksContext, adminToken: string): void {
  router.service(
    WebhooksAdminService,
    {
      applyWebhooks: async (req) => {
        const specs = req.webhooks.map((spec) => ({
          url: spec.url,
          description: spec.description,
          eventTypes: spec.eventTypes,
          gameIds: spec.gameIds,
          enabled: spec.enabled,
        }));
        const results = await applyWebhooks(ctx, req.companyId, specs);
        return { webhooks: results.map((result) => ({ webhook: webhookMessage(result.webhook), action: result.action, secret: result.secret })) };
      },
    },
    { requestGate: adminTokenGate(adminToken) },
  );
}
