// Clients of the four admin services, each call carrying the admin token and the tool's service identity.
import type { Client } from "@connectrpc/connect";
import { ContentAdminService, PlayersAdminService, TicketsAdminService, WebhooksAdminService } from "@support/proto";
import { adminTokenHeader, createServiceClient } from "@support/rpc";
import type { AdminConfig } from "./config.ts";

export interface AdminClients {
  content: Client<typeof ContentAdminService>;
  players: Client<typeof PlayersAdminService>;
  webhooks: Client<typeof WebhooksAdminService>;
  tickets: Client<typeof TicketsAdminService>;
}

export function createAdminClients(config: AdminConfig): AdminClients {
  const options = { timeoutMs: config.timeoutMs, interceptors: [adminTokenHeader(config.adminToken)], identity: config.identity };
  return {
    content: createServiceClient(ContentAdminService, config.contentUrl, options),
    players: createServiceClient(PlayersAdminService, config.playersUrl, options),
    webhooks: createServiceClient(WebhooksAdminService, config.webhooksUrl, options),
    tickets: createServiceClient(TicketsAdminService, config.ticketsUrl, options),
  };
}
