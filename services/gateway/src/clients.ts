// One Connect client per internal service, plus grpc.health.v1 of each for /healthz and /readyz.
import type { Client } from "@connectrpc/connect";
import { ContentService, health, MediaService, PlayerSideService, PlayersService, TicketsService } from "@support/proto";
import type { Registry } from "@support/metrics";
import { createServiceClient } from "@support/rpc";
import type { GatewayConfig } from "./config.ts";

export const SERVICE_NAMES = ["content", "tickets", "media", "players"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export type ContentClient = Client<typeof ContentService>;
export type TicketsClient = Client<typeof TicketsService>;
export type MediaClient = Client<typeof MediaService>;
export type PlayersClient = Client<typeof PlayersService>;
export type PlayerSideClient = Client<typeof PlayerSideService>;
export type HealthClient = Client<typeof health.Health>;

export interface GatewayClients {
  content: ContentClient;
  tickets: TicketsClient;
  media: MediaClient;
  /** Web support sessions and the shared counters of the public endpoints' rate limits. */
  players: PlayersClient;
  /** tickets' player side (what the player does through a web support session), served on the tickets port. */
  playerSide: PlayerSideClient;
  /** grpc.health.v1 of every service, for /healthz and /readyz. */
  health: Record<ServiceName, HealthClient>;
}

type ClientConfig = Pick<GatewayConfig, "CONTENT_URL" | "TICKETS_URL" | "MEDIA_URL" | "PLAYERS_URL" | "RPC_TIMEOUT_MS">;

/** `registry`: where the calls' durations are recorded (rpc_client_duration_seconds). */
export function createClients(config: ClientConfig, registry?: Registry): GatewayClients {
  const options = { timeoutMs: config.RPC_TIMEOUT_MS, registry };
  const urls: Record<ServiceName, string> = {
    content: config.CONTENT_URL,
    tickets: config.TICKETS_URL,
    media: config.MEDIA_URL,
    players: config.PLAYERS_URL,
  };
  return {
    content: createServiceClient(ContentService, urls.content, options),
    tickets: createServiceClient(TicketsService, urls.tickets, options),
    media: createServiceClient(MediaService, urls.media, options),
    players: createServiceClient(PlayersService, urls.players, options),
    playerSide: createServiceClient(PlayerSideService, urls.tickets, options),
    health: {
      content: createServiceClient(health.Health, urls.content, options),
      tickets: createServiceClient(health.Health, urls.tickets, options),
      media: createServiceClient(health.Health, urls.media, options),
      players: createServiceClient(health.Health, urls.players, options),
    },
  };
}
