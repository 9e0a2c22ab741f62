// The gateway's configuration, from environment variables only.
import { ConfigError, loadConfig, num, port, str, url } from "@support/config";
import { parseTrustProxy } from "./middleware/rate-limit.ts";
import { metricsConfigSpecs, serviceConfigSpecs } from "@support/runtime";

const { NATS_URL, NATS_PREFIX, LOG_LEVEL, SHUTDOWN_TIMEOUT_MS } = serviceConfigSpecs;

export const configSpecs = {
  PORT: port({ default: 8080, desc: "Port of the public REST API" }),
  HOST: str({ default: "0.0.0.0", desc: "Address the REST port binds to" }),
  CONTENT_URL: url({ default: "http://127.0.0.1:50051", desc: "Content service (Connect over h2c)" }),
  TICKETS_URL: url({ default: "http://127.0.0.1:50052", desc: "Tickets service" }),
  MEDIA_URL: url({ default: "http://127.0.0.1:50053", desc: "Media service" }),
  PLAYERS_URL: url({ default: "http://127.0.0.1:50054", desc: "Players service" }),
  NATS_URL,
  NATS_PREFIX,
  LOG_LEVEL,
  API_KEY_CACHE_TTL_MS: num({ default: 30_000, desc: "How long a valid API key is trusted without asking content (revocation events evict sooner)" }),
  API_KEY_NEGATIVE_CACHE_TTL_MS: num({ default: 5_000, desc: "How long an unknown or revoked key is remembered, so garbage keys cost no RPC each" }),
  REFERENCE_CACHE_TTL_MS: num({ default: 60_000, desc: "Lifetime of cached games/tags/fields/announcements per company (content events evict sooner)" }),
  API_KEY_CACHE_MAX: num({ default: 50_000, desc: "Most API keys (known or unknown) kept in the cache; the least recently used go first" }),
  REFERENCE_CACHE_MAX_COMPANIES: num({ default: 10_000, desc: "Most companies whose games/tags/fields/announcements are kept in the cache (per kind)" }),
  SESSION_CACHE_MAX: num({ default: 50_000, desc: "Most player session codes (known or unknown) kept in the cache of /player-api" }),
  RPC_TIMEOUT_MS: num({ default: 5_000, desc: "Deadline of one call to an internal service" }),
  REQUEST_TIMEOUT_MS: num({
    default: 10_000,
    desc: "Deadline of a whole REST request: all its internal calls share it (each also ends at RPC_TIMEOUT_MS), 504 after",
  }),
  HEALTH_CHECK_TIMEOUT_MS: num({ default: 1_000, desc: "Deadline of one grpc.health.v1 Check for /healthz and /readyz" }),
  BODY_LIMIT_BYTES: num({ default: 1_048_576, desc: "Largest accepted request body in bytes (1 MiB); a larger one is answered with 413" }),
  WEB_SUPPORT_URL: url({
    default: "http://127.0.0.1:8080/support/web",
    desc: "The public web support page: a session's url is this address with ?sid=<sessionCode> added (its own query is kept)",
  }),
  PUBLIC_RATE_LIMIT_PER_ADDRESS: num({ default: 120, desc: "Requests to the public endpoints per window and client address (0: no limit)" }),
  PUBLIC_RATE_LIMIT_PER_TOKEN: num({ default: 6_000, desc: "Requests to the public endpoints per window and environment token (0: no limit)" }),
  PUBLIC_RATE_LIMIT_WINDOW_SECONDS: num({ default: 60, desc: "Length of the fixed rate-limit windows (public endpoints and /player-api); the limits are per window" }),
  PLAYER_API_RATE_LIMIT_PER_SESSION: num({ default: 120, desc: "Requests to /player-api per window and session code (0: no limit)" }),
  PLAYER_API_RATE_LIMIT_PER_ADDRESS: num({
    default: 600,
    desc: "Requests to /player-api per window and client address, counted apart from the public endpoints' (0: no limit)",
  }),
  TRUST_PROXY: str({
    default: "false",
    desc: "Client address behind proxies: false (socket peer), true (first X-Forwarded-For address; the proxy must overwrite the header) or N (N appending proxies)",
  }),
  SHUTDOWN_TIMEOUT_MS,
  ...metricsConfigSpecs(),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(configSpecs, env);
  // Refuse a bad TRUST_PROXY at start-up, not on the first public request.
  try {
    parseTrustProxy(config.TRUST_PROXY);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${(error as Error).message}`);
  }
  if (!Number.isInteger(config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS) || config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS < 1 || config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS > 86_400) {
    throw new ConfigError("Invalid configuration: PUBLIC_RATE_LIMIT_WINDOW_SECONDS must be an integer from 1 to 86400");
  }
  for (const name of ["API_KEY_CACHE_MAX", "REFERENCE_CACHE_MAX_COMPANIES", "SESSION_CACHE_MAX"] as const) {
    if (!Number.isInteger(config[name]) || config[name] < 1) throw new ConfigError(`Invalid configuration: ${name} must be a positive integer`);
  }
  return config;
}
