// One Connect client per internal service over one transport per service: balanced over every
// address of the service (re-resolved periodically) and guarded by a circuit breaker with a
// retry budget, so that a dead service costs its routes no timeout per request. Plus
// grpc.health.v1 of each for /healthz/dependencies.
import type { Client } from "@connectrpc/connect";
import { AgentAccessService, CannedResponseService, CompanySettingsService, ContentService, EmailService, health, MediaService, PlayerSideService, PlayersService, TicketsService, WebhooksService } from "@support/proto";
import { rpcClientRefusals, type Registry } from "@support/metrics";
import {
  balancingOf, createAdmissionTransport, createResilientTransport, createServiceClient, createServiceTransport, loadServiceCaller, type AddressState, type BreakerState,
  type ServiceIdentitySettings,
} from "@support/rpc";
import type { GatewayConfig } from "./config.ts";
import { idempotencyInterceptor } from "./middleware/idempotency.ts";

export const SERVICE_NAMES = ["content", "tickets", "media", "players", "webhooks", "email"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export type ContentClient = Client<typeof ContentService>;
/** content's AgentAccessService: the support application's sign-in and sessions (/agent-api). */
export type AgentAccessClient = Client<typeof AgentAccessService>;
/** content's CannedResponseService: the support application's canned responses. */
export type CannedResponsesClient = Client<typeof CannedResponseService>;
/** content's CompanySettingsService: what a company's admins change in the settings. */
export type CompanySettingsClient = Client<typeof CompanySettingsService>;
export type TicketsClient = Client<typeof TicketsService>;
export type MediaClient = Client<typeof MediaService>;
export type PlayersClient = Client<typeof PlayersService>;
export type PlayerSideClient = Client<typeof PlayerSideService>;
export type WebhooksClient = Client<typeof WebhooksService>;
export type EmailClient = Client<typeof EmailService>;
export type HealthClient = Client<typeof health.Health>;

/** What the gateway knows of one service's connections, for /healthz/dependencies. */
export interface BackendState {
  addresses(): AddressState[];
  breakerState(): BreakerState;
}

export interface GatewayClients {
  content: ContentClient;
  /** The support application's sign-in and sessions, served by content (same transport as `content`). */
  agentAccess: AgentAccessClient;
  cannedResponses: CannedResponsesClient;
  companySettings: CompanySettingsClient;
  tickets: TicketsClient;
  media: MediaClient;
  /** Web support sessions and the shared counters of the public endpoints' rate limits. */
  players: PlayersClient;
  /** tickets' player side (what the player does through a web support session), served on the tickets port. */
  playerSide: PlayerSideClient;
  /** Webhook subscriptions and their delivery log. */
  webhooks: WebhooksClient;
  /** The email channel: the delivery status of the mails sent to players. */
  email: EmailClient;
  /** grpc.health.v1 of every service (past the breaker: it reports, it does not serve a route). */
  health: Record<ServiceName, HealthClient>;
  /** Addresses and breaker of every service; tests built without them report none. */
  backends?: Record<ServiceName, BackendState>;
  /** Closes every connection and stops the periodic lookups. */
  close?(): void;
}

type ClientConfig = Pick<
  GatewayConfig,
  | "CONTENT_URL"
  | "TICKETS_URL"
  | "MEDIA_URL"
  | "PLAYERS_URL"
  | "WEBHOOKS_URL"
  | "EMAIL_URL"
  | "RPC_TIMEOUT_MS"
  | "RPC_RESOLVE_INTERVAL_MS"
  | "RPC_HOSTS_FILE"
  | "RPC_BREAKER_FAILURES"
  | "RPC_BREAKER_OPEN_MS"
  | "RPC_RETRY_RATIO"
  | "RPC_MAX_IN_FLIGHT"
  | "RPC_MAX_QUEUED"
  | "RPC_MAX_WAIT_MS"
> &
  ServiceIdentitySettings;

/** `registry`: where the calls' durations are recorded (rpc_client_duration_seconds). */
export function createClients(config: ClientConfig, registry?: Registry): GatewayClients {
  // Every call made while serving a request with an Idempotency-Key carries the key.
  // Every call carries the gateway's service identity.
  const identity = loadServiceCaller("gateway", config);
  const options = { timeoutMs: config.RPC_TIMEOUT_MS, balancing: balancingOf(config), registry, interceptors: [idempotencyInterceptor], identity };
  const urls: Record<ServiceName, string> = {
    content: config.CONTENT_URL,
    tickets: config.TICKETS_URL,
    media: config.MEDIA_URL,
    players: config.PLAYERS_URL,
    webhooks: config.WEBHOOKS_URL,
    email: config.EMAIL_URL,
  };
  const refusals = registry && rpcClientRefusals(registry);
  const transports = Object.fromEntries(
    SERVICE_NAMES.map((name) => {
      const balanced = createServiceTransport(urls[name], options);
      const resilient = createResilientTransport(balanced, {
        breakAfterFailures: config.RPC_BREAKER_FAILURES,
        halfOpenAfterMs: config.RPC_BREAKER_OPEN_MS,
        retryRatio: config.RPC_RETRY_RATIO,
      });
      // Admission outside the breaker: a call refused for the gateway's own limit never reaches
      // the breaker or the retry budget.
      const admitted = createAdmissionTransport(resilient, {
        maxInFlight: config.RPC_MAX_IN_FLIGHT,
        maxQueued: config.RPC_MAX_QUEUED,
        maxWaitMs: config.RPC_MAX_WAIT_MS,
        onRefused: (reason) => refusals?.inc({ service: name, reason }),
      });
      return [name, { balanced, guarded: admitted, breakerState: () => resilient.breakerState() }];
    }),
  ) as Record<ServiceName, { balanced: ReturnType<typeof createServiceTransport>; guarded: ReturnType<typeof createAdmissionTransport>; breakerState(): BreakerState }>;
  const healthClient = (name: ServiceName) => createServiceClient(health.Health, transports[name].balanced, options);
  return {
    content: createServiceClient(ContentService, transports.content.guarded, options),
    agentAccess: createServiceClient(AgentAccessService, transports.content.guarded, options),
    cannedResponses: createServiceClient(CannedResponseService, transports.content.guarded, options),
    companySettings: createServiceClient(CompanySettingsService, transports.content.guarded, options),
    tickets: createServiceClient(TicketsService, transports.tickets.guarded, options),
    media: createServiceClient(MediaService, transports.media.guarded, options),
    players: createServiceClient(PlayersService, transports.players.guarded, options),
    playerSide: createServiceClient(PlayerSideService, transports.tickets.guarded, options),
    webhooks: createServiceClient(WebhooksService, transports.webhooks.guarded, options),
    email: createServiceClient(EmailService, transports.email.guarded, options),
    health: Object.fromEntries(SERVICE_NAMES.map((name) => [name, healthClient(name)])) as Record<ServiceName, HealthClient>,
    backends: Object.fromEntries(
      SERVICE_NAMES.map((name) => [name, { addresses: () => transports[name].balanced.addresses(), breakerState: () => transports[name].breakerState() }]),
    ) as Record<ServiceName, BackendState>,
    close() {
      for (const name of SERVICE_NAMES) transports[name].balanced.close();
    },
  };
}
