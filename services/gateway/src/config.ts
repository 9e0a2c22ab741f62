// The gateway's configuration, from environment variables only.
import { ConfigError, loadConfig, num, port, str, url } from "@support/config";
import { parseAllowedOrigins } from "./middleware/cors.ts";
import { parseTrustProxy } from "./middleware/rate-limit.ts";
import { metricsConfigSpecs, rpcClientConfigSpecs, serviceConfigSpecs, serviceIdentityConfigSpecs } from "@support/runtime";

const { NATS_URL, NATS_PREFIX, LOG_LEVEL, SHUTDOWN_TIMEOUT_MS } = serviceConfigSpecs;

export const configSpecs = {
  PORT: port({ default: 8080, desc: "Port of the public REST API" }),
  // Loopback unless told otherwise, like every process (make up serves 127.0.0.1:8080); the
  // Kubernetes manifests set 0.0.0.0.
  HOST: str({ default: "127.0.0.1", desc: "Address the REST port binds to (0.0.0.0: every interface, as in a cluster or a container)" }),
  // A URL whose name resolves to every replica (a headless Service), or a comma-separated list.
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Content service (Connect over h2c); calls are balanced over every address" }),
  TICKETS_URL: str({ default: "http://127.0.0.1:50052", desc: "Tickets service" }),
  MEDIA_URL: str({ default: "http://127.0.0.1:50053", desc: "Media service" }),
  PLAYERS_URL: str({ default: "http://127.0.0.1:50054", desc: "Players service" }),
  WEBHOOKS_URL: str({ default: "http://127.0.0.1:50055", desc: "Webhooks service (subscriptions and delivery log)" }),
  EMAIL_URL: str({ default: "http://127.0.0.1:50056", desc: "Email service (the delivery status of mails to players)" }),
  NATS_URL,
  NATS_PREFIX,
  LOG_LEVEL,
  API_KEY_CACHE_TTL_MS: num({ default: 30_000, desc: "How long a valid API key is trusted without asking content (revocation events evict sooner)" }),
  API_KEY_NEGATIVE_CACHE_TTL_MS: num({ default: 5_000, desc: "How long an unknown or revoked key is remembered, so garbage keys cost no RPC each" }),
  REFERENCE_CACHE_TTL_MS: num({ default: 60_000, desc: "Lifetime of cached games/tags/fields/announcements per company (content events evict sooner)" }),
  API_KEY_USE_REPORT_MS: num({ default: 60_000, desc: "How often the gateway reports to content when each API key was last used (the settings' key list)" }),
  API_KEY_CACHE_MAX: num({ default: 50_000, desc: "Most API keys (known or unknown) kept in the cache; the least recently used go first" }),
  REFERENCE_CACHE_MAX_COMPANIES: num({ default: 10_000, desc: "Most companies whose games/tags/fields/announcements are kept in the cache (per kind)" }),
  REFERENCE_CACHE_MAX_BYTES: num({ default: 16_777_216, desc: "Most bytes of cached games/tags/fields/announcements response bodies (all companies, a quarter per kind); the least recently used go first" }),
  RATE_LIMIT_REFUSED_CACHE_MAX: num({ default: 20_000, desc: "Most rate-limit buckets remembered as over their limit (refused without asking players); the least recently used go first" }),
  SESSION_CACHE_MAX_BYTES: num({ default: 33_554_432, desc: "Most bytes of cached player sessions (their metadata counted in UTF-8 bytes, plus 512 each); the least recently used go first" }),
  SESSION_CACHE_MAX: num({ default: 50_000, desc: "Most player session codes (known or unknown) kept in the cache of /player-api" }),
  RPC_TIMEOUT_MS: num({ default: 5_000, desc: "Deadline of one call to an internal service" }),
  REQUEST_TIMEOUT_MS: num({
    default: 10_000,
    desc: "Deadline of a whole REST request: all its internal calls share it (each also ends at RPC_TIMEOUT_MS), 504 after",
  }),
  HEALTH_CHECK_TIMEOUT_MS: num({ default: 1_000, desc: "Deadline of one grpc.health.v1 Check of a service for /healthz/dependencies" }),
  ...rpcClientConfigSpecs,
  RPC_BREAKER_FAILURES: num({ default: 5, desc: "Consecutive failed calls to a service (refused, lost, gone; never a passed deadline) that open its circuit breaker" }),
  RPC_BREAKER_OPEN_MS: num({ default: 5_000, desc: "How long an open breaker answers 503 at once before one trial call goes through" }),
  MAX_READS_IN_PROGRESS: num({ default: 256, desc: "Reads (GET, HEAD, OPTIONS) this gateway handles at once; more are refused at once with 503 and Retry-After (0: no limit); probes and event streams are not counted" }),
  MAX_WRITES_IN_PROGRESS: num({ default: 16, desc: "Writes this gateway handles at once; more are refused at once with 503 and Retry-After (0: no limit). Below RPC_MAX_IN_FLIGHT, so that writes never take every slot of a service from its reads" }),
  RPC_MAX_IN_FLIGHT: num({
    default: 64,
    desc: "Calls this gateway has on their way to one service at once (admission control; 0: no limit): a few times the concurrency at which the service answers its most, divided among the gateway replicas",
  }),
  RPC_MAX_QUEUED: num({ default: 256, desc: "Calls that may wait for a free slot of a service beyond RPC_MAX_IN_FLIGHT; more are refused at once (503, Retry-After)" }),
  RPC_MAX_WAIT_MS: num({ default: 20, desc: "The longest a call waits for a free slot of a service before its request is refused (503, Retry-After)" }),
  RPC_RETRY_RATIO: num({ default: 0.1, desc: "Retry budget per service: retries allowed per call made (plus a burst of 10); only calls that cannot have had an effect are retried" }),
  BODY_LIMIT_BYTES: num({ default: 1_048_576, desc: "Largest accepted request body in bytes (1 MiB); a larger one is answered with 413" }),
  WEB_SUPPORT_URL: url({
    default: "http://127.0.0.1:8080/support/",
    desc: "The public web support page: a session's url is this address with ?sid=<sessionCode> added (its own query is kept)",
  }),
  WEB_SUPPORT_DIR: str({
    default: "",
    desc: "Folder of the built web support page served at /support/ (empty: apps/web-support/dist of the workspace the gateway runs from: the repository, or /app in the image; missing: /support/ answers 503)",
  }),
  AGENT_CONSOLE_DIR: str({
    default: "",
    desc: "Folder of the built support application (the agents' console) served at /app/ (empty: apps/agent-console/dist of the workspace the gateway runs from: the repository, or /app in the image; missing: /app/ answers 503)",
  }),
  WEB_SUPPORT_CONNECT_SRC: str({
    default: "",
    desc: "Space-separated origins the page may fetch besides its own (CSP connect-src and img-src): the S3 endpoint of the pre-signed uploads and downloads",
  }),
  WEB_SUPPORT_FRAME_ANCESTORS: str({
    default: "'none'",
    desc: "CSP frame-ancestors of the page: 'none' (in-game web views open it as a page, not in a frame) or the origins allowed to frame it",
  }),
  WEB_SUPPORT_ORIGINS: str({
    default: "",
    desc: "Origins (comma-separated, scheme://host[:port]) whose pages may call /player-api cross-origin (CORS); empty: the origin of WEB_SUPPORT_URL",
  }),
  SUPPORT_APP_URL: str({
    default: "",
    desc: "Where the support application is served (same origin as /agent-api): its origin is the only Origin /agent-api accepts on state-changing requests, and an https one makes the session cookie Secure and __Host-; empty: the request's own http://<Host> (direct access, local)",
  }),
  AGENT_SESSION_CACHE_TTL_MS: num({
    default: 10_000,
    desc: "How long a replica trusts a support application session it read from content (never past the session's end); content.agent_sessions.ended events end it sooner on every replica",
  }),
  AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: num({
    default: 30,
    desc: "POST /agent-api/sign-in attempts per window (PUBLIC_RATE_LIMIT_WINDOW_SECONDS) and client address, on the shared counters, before the password is checked (0: no limit); content's lockouts per account and address come on top",
  }),
  PLAYER_STREAMS_PER_SESSION: num({ default: 5, desc: "Most live ticket streams (GET /player-api/tickets/{id}/stream) one session may have open at once on one gateway" }),
  AGENT_STREAM_HEARTBEAT_MS: num({ default: 15_000, desc: "Interval of the `: ping` comment on the agents' live streams (GET /agent-api/stream); the stream also checks then that its session has not ended" }),
  AGENT_STREAMS_PER_USER: num({ default: 10, desc: "Most live streams (GET /agent-api/stream) one user may have open at once on one gateway (one per open console tab)" }),
  AGENT_LIVE_FEED_CAPACITY: num({ default: 20_000, desc: "How many recent ticket changes (of every company) a gateway keeps in memory for agents' streams that reconnect; older ones are read again from the tickets stream" }),
  PLAYER_STREAM_HEARTBEAT_MS: num({ default: 15_000, desc: "Interval of the `: ping` comment on live ticket streams (keeps proxies from closing idle connections)" }),
  PLAYER_STREAM_RESYNC_MS: num({
    default: 15_000,
    desc: "A live ticket stream re-reads its ticket this often even without a tickets event (covers events missed while NATS was away)",
  }),
  PUBLIC_RATE_LIMIT_PER_ADDRESS: num({ default: 120, desc: "Requests to the public endpoints per window and client address (0: no limit)" }),
  PUBLIC_RATE_LIMIT_PER_TOKEN: num({ default: 6_000, desc: "Requests to the public endpoints per window and environment token (0: no limit)" }),
  PUBLIC_RATE_LIMIT_WINDOW_SECONDS: num({ default: 60, desc: "Length of the fixed rate-limit windows (public endpoints and /player-api); the limits are per window" }),
  PLAYER_API_RATE_LIMIT_PER_SESSION: num({ default: 120, desc: "Requests to /player-api per window and session code (0: no limit)" }),
  PLAYER_API_RATE_LIMIT_PER_ADDRESS: num({
    default: 600,
    desc: "Requests to /player-api per window and client address, counted apart from the public endpoints' (0: no limit)",
  }),
  API_RATE_LIMIT_PER_MINUTE: num({
    default: 1_200,
    desc: "Requests per minute all of a company's API keys may make together, over every gateway replica, unless the company's tenant settings say otherwise (a key's own limit defaults to its company's)",
  }),
  API_RATE_LIMIT_SYNC_INTERVAL_MS: num({
    default: 250,
    desc: "How often each gateway replica sends its API-key request counts to the shared counters (players) and reads the totals; admission between syncs uses local knowledge only",
  }),
  API_RATE_LIMIT_OFFLINE_SHARE: num({
    default: 0.5,
    desc: "Share of an API rate limit one replica admits on its own counts while the shared counters are unreachable (1/replicas keeps the total within the limit)",
  }),
  API_KEY_FAILURES_PER_ADDRESS: num({
    default: 30,
    desc: "Failed API key authentications (another scheme, a malformed, unknown or revoked key) per window and client address; past it, the address's requests with keys not seen valid lately get 429 until the window ends (0: no limit)",
  }),
  API_KEY_FAILURE_WINDOW_SECONDS: num({ default: 60, desc: "Length of the fixed windows of API_KEY_FAILURES_PER_ADDRESS, shared by all replicas" }),
  TRUST_PROXY: str({
    default: "false",
    desc: "Client address behind proxies: false (socket peer), true (first X-Forwarded-For address; the proxy must overwrite the header) or N (N appending proxies)",
  }),
  SHUTDOWN_TIMEOUT_MS,
  ...metricsConfigSpecs(),
  ...serviceIdentityConfigSpecs(),
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
  if (!Number.isInteger(config.API_KEY_FAILURE_WINDOW_SECONDS) || config.API_KEY_FAILURE_WINDOW_SECONDS < 1 || config.API_KEY_FAILURE_WINDOW_SECONDS > 86_400) {
    throw new ConfigError("Invalid configuration: API_KEY_FAILURE_WINDOW_SECONDS must be an integer from 1 to 86400");
  }
  if (!Number.isInteger(config.API_KEY_FAILURES_PER_ADDRESS) || config.API_KEY_FAILURES_PER_ADDRESS < 0) {
    throw new ConfigError("Invalid configuration: API_KEY_FAILURES_PER_ADDRESS must be 0 or a positive integer");
  }
  if (!Number.isInteger(config.API_RATE_LIMIT_PER_MINUTE) || config.API_RATE_LIMIT_PER_MINUTE < 1 || config.API_RATE_LIMIT_PER_MINUTE > 1_000_000_000) {
    throw new ConfigError("Invalid configuration: API_RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000000");
  }
  if (config.API_RATE_LIMIT_SYNC_INTERVAL_MS < 20 || config.API_RATE_LIMIT_SYNC_INTERVAL_MS > 10_000) {
    throw new ConfigError("Invalid configuration: API_RATE_LIMIT_SYNC_INTERVAL_MS must be from 20 to 10000");
  }
  if (!(config.API_RATE_LIMIT_OFFLINE_SHARE > 0 && config.API_RATE_LIMIT_OFFLINE_SHARE <= 1)) {
    throw new ConfigError("Invalid configuration: API_RATE_LIMIT_OFFLINE_SHARE must be greater than 0 and at most 1");
  }
  for (const name of ["CONTENT_URL", "TICKETS_URL", "MEDIA_URL", "PLAYERS_URL", "WEBHOOKS_URL", "EMAIL_URL"] as const) {
    const parts = config[name].split(",").map((part) => part.trim());
    if (!parts.every((part) => URL.canParse(part) && new URL(part).protocol === "http:")) {
      throw new ConfigError(`Invalid configuration: ${name} must be an http URL or a comma-separated list of them`);
    }
  }
  if (!Number.isInteger(config.RPC_BREAKER_FAILURES) || config.RPC_BREAKER_FAILURES < 1) throw new ConfigError("Invalid configuration: RPC_BREAKER_FAILURES must be a positive integer");
  for (const key of ["MAX_READS_IN_PROGRESS", "MAX_WRITES_IN_PROGRESS", "RPC_MAX_IN_FLIGHT", "RPC_MAX_QUEUED", "RPC_MAX_WAIT_MS"] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 0) throw new ConfigError(`Invalid configuration: ${key} must be a whole number, 0 or more`);
  }
  if (config.RPC_RETRY_RATIO < 0 || config.RPC_RETRY_RATIO > 1) throw new ConfigError("Invalid configuration: RPC_RETRY_RATIO must be from 0 to 1");
  if (config.RPC_RESOLVE_INTERVAL_MS < 100) throw new ConfigError("Invalid configuration: RPC_RESOLVE_INTERVAL_MS must be at least 100");
  // Each is spliced into the page's Content-Security-Policy header: no directive separators.
  for (const name of ["WEB_SUPPORT_CONNECT_SRC", "WEB_SUPPORT_FRAME_ANCESTORS"] as const) {
    if (/[;,\r\n]/.test(config[name])) throw new ConfigError(`Invalid configuration: ${name} must be space-separated CSP sources (no ';' or ',')`);
  }
  try {
    parseAllowedOrigins(config.WEB_SUPPORT_ORIGINS, config.WEB_SUPPORT_URL);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${(error as Error).message}`);
  }
  if (config.SUPPORT_APP_URL !== "") {
    const parsed = URL.canParse(config.SUPPORT_APP_URL) ? new URL(config.SUPPORT_APP_URL) : undefined;
    if (!parsed || !["http:", "https:"].includes(parsed.protocol)) throw new ConfigError("Invalid configuration: SUPPORT_APP_URL must be an http or https URL (or empty)");
  }
  if (!Number.isInteger(config.AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS) || config.AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS < 0) {
    throw new ConfigError("Invalid configuration: AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS must be 0 or a positive integer");
  }
  for (const name of [
    "API_KEY_CACHE_MAX", "REFERENCE_CACHE_MAX_COMPANIES", "REFERENCE_CACHE_MAX_BYTES", "SESSION_CACHE_MAX", "SESSION_CACHE_MAX_BYTES", "AGENT_SESSION_CACHE_TTL_MS", "RATE_LIMIT_REFUSED_CACHE_MAX", "PLAYER_STREAMS_PER_SESSION", "PLAYER_STREAM_HEARTBEAT_MS", "PLAYER_STREAM_RESYNC_MS",
    "AGENT_STREAM_HEARTBEAT_MS", "AGENT_STREAMS_PER_USER", "AGENT_LIVE_FEED_CAPACITY", "API_KEY_USE_REPORT_MS",
  ] as const) {
    if (!Number.isInteger(config[name]) || config[name] < 1) throw new ConfigError(`Invalid configuration: ${name} must be a positive integer`);
  }
  return config;
}
