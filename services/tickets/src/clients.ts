// Connect clients of the services the tickets service depends on: content (games, tags,
// fields, company settings, user access), players (identity) and media (attachments).
import type { Client } from "@connectrpc/connect";
import { ContentService, MediaService, PlayersService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import type { TicketsConfig } from "./config.ts";

export type ContentClient = Client<typeof ContentService>;
export type PlayersClient = Client<typeof PlayersService>;
export type MediaClient = Client<typeof MediaService>;

export interface TicketsClients {
  content: ContentClient;
  players: PlayersClient;
  media: MediaClient;
}

export function createClients(config: Pick<TicketsConfig, "CONTENT_URL" | "PLAYERS_URL" | "MEDIA_URL" | "RPC_TIMEOUT_MS">): TicketsClients {
  const options = { timeoutMs: config.RPC_TIMEOUT_MS };
  return {
    content: createServiceClient(ContentService, config.CONTENT_URL, options),
    players: createServiceClient(PlayersService, config.PLAYERS_URL, options),
    media: createServiceClient(MediaService, config.MEDIA_URL, options),
  };
}
