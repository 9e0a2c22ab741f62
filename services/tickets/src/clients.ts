// Connect clients of the services the tickets service depends on: content (games, tags,
// fields, company settings, user access) and players (identity).
import type { Client } from "@connectrpc/connect";
import { ContentService, PlayersService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import type { TicketsConfig } from "./config.ts";

export type ContentClient = Client<typeof ContentService>;
export type PlayersClient = Client<typeof PlayersService>;

export interface TicketsClients {
  content: ContentClient;
  players: PlayersClient;
}

export function createClients(config: Pick<TicketsConfig, "CONTENT_URL" | "PLAYERS_URL" | "RPC_TIMEOUT_MS">): TicketsClients {
  const options = { timeoutMs: config.RPC_TIMEOUT_MS };
  return {
    content: createServiceClient(ContentService, config.CONTENT_URL, options),
    players: createServiceClient(PlayersService, config.PLAYERS_URL, options),
  };
}
