// Clients of the four admin services, each call carrying the admin token and the tool's service identity.
import type { Client } from "@connectrpc/connect";
import { ContentAdminService, PlayersAdminService, TicketsAdminService, WebhooksAdminService } from "@support/proto";
import { adminTokenHeader, createServiceClient, createServiceTransport } from "@support/rpc";
import type { AdminConfig } from "./config.ts";

export interface AdminClients {
  content: Client<typeof ContentAdminService>;
  players: Client<typeof PlayersAdminService>;
  webhooks: Client<typeof WebhooksAdminService>;
  tickets: Client<typeof TicketsAdminService>;
}

/** The clients and `close`, which ends their connections (a command run inside a longer-lived process leaves none open). */
export function createAdminClients(config: AdminConfig): AdminClients & { close(): void } {
  const options = { timeoutMs: config.timeoutMs, interceptors: [adminTokenHeader(config.adminToken)], identity: config.identity };
  const transports = {
    content: createServiceTransport(config.contentUrl, options),
    players: createServiceTransport(config.playersUrl, options),
    webhooks: createServiceTransport(config.webhooksUrl, options),
    tickets: createServiceTransport(config.ticketsUrl, options),
  };
  return {
    content: createServiceClient(ContentAdminService, transports.content, options),
    players: createServiceClient(PlayersAdminService, transports.players, options),
    webhooks: createServiceClient(WebhooksAdminService, transports.webhooks, options),
    tickets: createServiceClient(TicketsAdminService, transports.tickets, options),
    close: () => {
      for (const transport of Object.values(transports)) transport.close();
    },
  };
}
