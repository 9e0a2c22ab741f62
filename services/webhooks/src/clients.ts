// Connect clients of the services the webhooks service depends on: content (games of a company).
import type { Client } from "@connectrpc/connect";
import type { Registry } from "@support/metrics";
import { ContentService } from "@support/proto";
import { balancingOf, createServiceClient, loadServiceCaller, type ServiceIdentitySettings } from "@support/rpc";
import type { WebhooksConfig } from "./config.ts";

export type ContentClient = Client<typeof ContentService>;

export function createContentClient(config: Pick<WebhooksConfig, "CONTENT_URL" | "RPC_TIMEOUT_MS" | "RPC_RESOLVE_INTERVAL_MS" | "RPC_HOSTS_FILE"> & ServiceIdentitySettings, registry?: Registry): ContentClient {
  return createServiceClient(ContentService, config.CONTENT_URL, {
    timeoutMs: config.RPC_TIMEOUT_MS,
    balancing: balancingOf(config),
    registry,
    identity: loadServiceCaller("webhooks", config),
  });
}
