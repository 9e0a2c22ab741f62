// Builds the gateway from its dependencies (no globals: tests start it in-process on port 0).
// Middleware, outermost first: request context (id, deadline) -> default response headers
// (nosniff, no-store) -> tracing (when on) -> request outcome (access log, duration
// histogram) -> CORS -> errors -> router. Per route the router runs: API key check (with the
// throttling of failed ones per client address) -> JSON body -> OpenAPI validation -> handler,
// so that an unknown route is a 404 and a missing key a 403 before any body is read.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type net from "node:net";
import { Router } from "@koa/router";
import type { NatsConnection } from "@support/bus";
import { AppError } from "@support/errors";
import { REQUEST_ID_HEADER, type Logger } from "@support/logging";
import { createMetricsRegistry, type Registry } from "@support/metrics";
import { createHost, createHttpServer, type Startable } from "@support/runtime";
import Koa from "koa";
import { createAgentSessionCache, type AgentSessionCache } from "./agent-api/sessions.ts";
import { createApiKeyUseRecorder } from "./api-key-use.ts";
import { createApiKeyCache, createAuthMiddleware, type ApiKeyCache } from "./auth.ts";
import { createReferenceCaches, type ReferenceCaches } from "./cache.ts";
import type { GatewayClients } from "./clients.ts";
import type { GatewayConfig } from "./config.ts";
import { createAgentSessionsEndedConsumer } from "./events/agent-sessions-ended.consumer.ts";
import { createContentChangedConsumer } from "./events/content-changed.consumer.ts";
import { createSessionChangedConsumer } from "./events/session-changed.consumer.ts";
import { createTicketEventsConsumer } from "./events/ticket-events.consumer.ts";
import { parseAllowedOrigins, playerApiCors } from "./middleware/cors.ts";
import { TicketStreamHub } from "./player-side/ticket-stream.ts";
import { createHealthChecker, registerHealthRoutes } from "./health.ts";
import { apiKeyFailureLimiterFromConfig } from "./middleware/api-key-failures.ts";
import { createPlayersApiRateLimiter } from "./middleware/api-rate-limit.ts";
import { createPublicRateLimiter, parseTrustProxy, refusalCounter } from "./middleware/rate-limit.ts";
import { errorHandler, HttpProblem } from "./middleware/errors.ts";
import { jsonBody } from "./middleware/json-body.ts";
import { requestContext } from "./middleware/request-context.ts";
import { requestOutcome } from "./middleware/request-outcome.ts";
import { responseHeaders } from "./middleware/response-headers.ts";
import { tracing, tracingActive } from "./middleware/tracing.ts";
import { registerDocsRoutes } from "./openapi/docs.ts";
import { registerAgentApiRoutes } from "./routes/agent-api.ts";
import { registerAgentTicketRoutes } from "./routes/agent-tickets.ts";
import { registerAgentLiveRoutes } from "./routes/agent-live.ts";
import { registerAgentAuditLogRoutes } from "./routes/agent-audit-log.ts";
import { registerAgentCannedResponseRoutes } from "./routes/agent-canned-responses.ts";
import { ANSWER_INCIDENT_TIMEOUT_MS, registerAgentIncidentRoutes } from "./routes/agent-incidents.ts";
import { registerAgentSettingsRoutes } from "./routes/agent-settings.ts";
import { registerAgentTriageRoutes } from "./routes/agent-triage.ts";
import { registerAgentSettingsGamesRoutes } from "./routes/agent-settings-games.ts";
import { registerAgentSettingsCollectorsRoutes } from "./routes/agent-settings-collectors.ts";
import { registerAgentSettingsArticlesRoutes } from "./routes/agent-settings-articles.ts";
import { registerAgentSettingsWebhooksRoutes } from "./routes/agent-settings-webhooks.ts";
import { registerAgentSettingsPlayersRoutes } from "./routes/agent-settings-players.ts";
import { registerAgentSettingsBrandingRoutes } from "./routes/agent-settings-branding.ts";
import { createLogoCache, registerGameLogoRoutes, type LogoCache } from "./routes/game-logos.ts";
import { registerAgentDirectoryRoutes } from "./routes/agent-directory.ts";
import { registerAgentSavedViewRoutes } from "./routes/agent-saved-views.ts";
import { registerAgentSettingsRulesRoutes } from "./routes/agent-settings-rules.ts";
import { registerAgentSettingsSlaRoutes } from "./routes/agent-settings-sla.ts";
import { AgentLiveFeed } from "./agent-api/live-feed.ts";
import { PresenceBoard } from "./agent-api/presence.ts";
import { registerAnnouncementRoutes } from "./routes/announcements.ts";
import { registerAttachmentRoutes } from "./routes/attachments.ts";
import { createApiRoutes } from "./routes/api.ts";
import { registerFieldRoutes } from "./routes/fields.ts";
import { registerGameRoutes } from "./routes/games.ts";
import { requestAdmission } from "./middleware/admission.ts";
import { createPlayerApiRateLimiter, createSessionCache, registerPlayerSideRoutes } from "./routes/player-side.ts";
import { DELETE_PLAYER_TIMEOUT_MS, registerPlayerRoutes } from "./routes/players.ts";
import { playersRateLimitStore, registerSessionRoutes } from "./routes/sessions.ts";
import { registerTagRoutes } from "./routes/tags.ts";
import { registerTicketRoutes } from "./routes/tickets.ts";
import { dispatchRoutes } from "./route-dispatch.ts";
import { rememberStaticMatches } from "./route-matches.ts";
import { registerWebSupportRoutes, webSupportOptions } from "./routes/web-support.ts";
import { agentConsoleOptions, registerAgentConsoleRoutes } from "./routes/agent-console.ts";
import { registerRatingPageRoutes } from "./routes/rating-page.ts";
import { registerWebhookRoutes } from "./routes/webhooks.ts";
import type { GatewayMiddleware, GatewayRouter, GatewayState } from "./types.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  clients: GatewayClients;
  /** Without NATS, cached entries live out their TTL (no event-driven eviction). Drained at stop. */
  nc?: NatsConnection;
  /**
   * Whether the agents' live side (GET /agent-api/stream, presence) runs on `nc`, which must then
   * offer JetStream; default true with `nc`. Without it those routes answer 503.
   */
  agentLive?: boolean;
  /**
   * The process's metrics, served on METRICS_HOST:METRICS_PORT; pass the one `clients` record
   * into (createClients(config, registry)). A new registry otherwise.
   */
  registry?: Registry;
}

export interface Gateway {
  /** Resolves with the bound REST and metrics ports (useful with port 0 in tests). */
  start(): Promise<{ port: number; metricsPort: number }>;
  /** Stops taking connections, answers in-flight requests (bounded), closes every connection, stops the event subscriptions, drains NATS. */
  stop(): Promise<void>;
  app: Koa<GatewayState>;
  caches: { reference: ReferenceCaches; keys: ApiKeyCache; agentSessions: AgentSessionCache; logos: LogoCache };
  /** What GET /metrics serves. */
  registry: Registry;
}

/** 404 for an unknown path, 405 (with `Allow`) for a known path with another method. */
function unmatchedRoute(router: GatewayRouter): GatewayMiddleware {
  return async (ctx) => {
    const match = router.match(ctx.path, ctx.method);
    const allowed = new Set(match.path.flatMap((layer) => layer.methods));
    if (allowed.size === 0) throw new AppError("not_found", `No route for ${ctx.method} ${ctx.path}`);
    const allow = [...allowed].join(", ");
    if (ctx.method === "OPTIONS") {
      ctx.status = 204;
      ctx.set("Allow", allow);
      return;
    }
    throw new HttpProblem(405, "method_not_allowed", `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, { Allow: allow });
  };
}

export function createServer(deps: GatewayDeps): Gateway {
  const { config, logger, clients } = deps;
  const registry = deps.registry ?? createMetricsRegistry();
  const caches = {
    reference: createReferenceCaches({
      ttlMs: config.REFERENCE_CACHE_TTL_MS,
      maxCompanies: config.REFERENCE_CACHE_MAX_COMPANIES,
      maxBytes: config.REFERENCE_CACHE_MAX_BYTES,
    }),
    keys: createApiKeyCache({ ttlMs: config.API_KEY_CACHE_TTL_MS, negativeTtlMs: config.API_KEY_NEGATIVE_CACHE_TTL_MS, max: config.API_KEY_CACHE_MAX }),
    agentSessions: createAgentSessionCache({ ttlMs: config.AGENT_SESSION_CACHE_TTL_MS }),
    logos: createLogoCache(),
  };
  // strict: a trailing slash is another path. `DELETE /announcements/` (an empty game id) must
  // not clear the shared announcement.
  const router: GatewayRouter = new Router<GatewayState>({ strict: true });
  registerHealthRoutes(router, createHealthChecker(clients.health, { timeoutMs: config.HEALTH_CHECK_TIMEOUT_MS, cacheMs: 1000 }), clients.backends, {
    isStarted: () => httpServer.isStarted(),
    isStopping: () => httpServer.isStopping(),
  });
  registerDocsRoutes(router);
  registerGameLogoRoutes(router, { content: clients.content, logos: caches.logos });
  registerAgentConsoleRoutes(router, agentConsoleOptions(config));
  registerRatingPageRoutes(router, { email: clients.email });
  const apiRateLimiter = createPlayersApiRateLimiter(clients.players, config, logger, registry);
  const apiKeyUses = createApiKeyUseRecorder({ content: clients.content, logger, intervalMs: config.API_KEY_USE_REPORT_MS });
  const api = createApiRoutes({
    router,
    authenticate: createAuthMiddleware({
      content: clients.content,
      keys: caches.keys,
      uses: apiKeyUses,
      failures: apiKeyFailureLimiterFromConfig(playersRateLimitStore(clients.players), config, logger, registry),
    }),
    rateLimit: apiRateLimiter.middleware(),
    jsonBody: jsonBody(config.BODY_LIMIT_BYTES),
  });
  const routeDeps = { content: clients.content, caches: caches.reference };
  registerAnnouncementRoutes(api, routeDeps);
  registerGameRoutes(api, routeDeps);
  registerTagRoutes(api, routeDeps);
  registerFieldRoutes(api, routeDeps);
  registerTicketRoutes(api, { tickets: clients.tickets });
  registerAttachmentRoutes(api, { media: clients.media });
  registerPlayerRoutes(api, { players: clients.players });
  registerSessionRoutes(api, { players: clients.players, config, registry, logger });
  registerWebhookRoutes(api, { webhooks: clients.webhooks });
  // The agents' live side needs NATS: the tickets stream and presence between replicas (the
  // player's stream shows who of the agents is typing too).
  const live = deps.nc !== undefined && deps.agentLive !== false;
  const presenceBoard = live && deps.nc ? new PresenceBoard({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, logger }) : undefined;
  const streams = new TicketStreamHub();
  const sessions = createSessionCache({ max: config.SESSION_CACHE_MAX, maxBytes: config.SESSION_CACHE_MAX_BYTES });
  const playerSide = registerPlayerSideRoutes(api, {
    players: clients.players,
    content: clients.content,
    tickets: clients.tickets,
    media: clients.media,
    playerSide: clients.playerSide,
    agentAccess: clients.agentAccess,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    sessions,
    limiter: createPlayerApiRateLimiter(clients.players, config, registry),
    streams,
    ...(presenceBoard ? { presence: presenceBoard } : {}),
    streamSettings: {
      perSession: config.PLAYER_STREAMS_PER_SESSION,
      heartbeatMs: config.PLAYER_STREAM_HEARTBEAT_MS,
      resyncMs: config.PLAYER_STREAM_RESYNC_MS,
    },
    logger,
  });
  // The page at /support/ carries its session's first data (the player side reads it).
  registerWebSupportRoutes(router, webSupportOptions(config), { pageData: playerSide.pageData, logger });
  // The support application's door; sign-in attempts count per client address on the shared
  // counters (like the public session endpoints), apart from every other bucket.
  const agentGuards = registerAgentApiRoutes(api, {
    agentAccess: clients.agentAccess,
    sessions: caches.agentSessions,
    config,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    signInLimiter: createPublicRateLimiter(playersRateLimitStore(clients.players), {
      perAddress: config.AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS,
      perToken: 0,
      windowSeconds: config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS,
      trustProxy: parseTrustProxy(config.TRUST_PROXY),
      keyPrefix: "agent-sign-in:",
      refusedCacheMax: config.RATE_LIMIT_REFUSED_CACHE_MAX,
      onRefused: refusalCounter(registry, "agent_sign_in"),
    }),
  });
  registerAgentTicketRoutes(api, {
    tickets: clients.tickets,
    players: clients.players,
    media: clients.media,
    email: clients.email,
    guards: agentGuards,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
  });
  registerAgentTriageRoutes(api, { tickets: clients.tickets, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentCannedResponseRoutes(api, {
    cannedResponses: clients.cannedResponses,
    tickets: clients.tickets,
    content: clients.content,
    guards: agentGuards,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
  });
  registerAgentIncidentRoutes(api, {
    tickets: clients.tickets,
    cannedResponses: clients.cannedResponses,
    companySettings: clients.companySettings,
    guards: agentGuards,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
  });
  registerAgentDirectoryRoutes(api, { agentAccess: clients.agentAccess, content: clients.content, guards: agentGuards });
  registerAgentAuditLogRoutes(api, { agentAccess: clients.agentAccess, guards: agentGuards });
  registerAgentSettingsRoutes(api, {
    companySettings: clients.companySettings,
    guards: agentGuards,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    defaultRateLimitPerMinute: config.API_RATE_LIMIT_PER_MINUTE,
    apiKeys: caches.keys,
  });
  registerAgentSettingsCollectorsRoutes(api, { companySettings: clients.companySettings, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsArticlesRoutes(api, { companySettings: clients.companySettings, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsGamesRoutes(api, { companySettings: clients.companySettings, players: clients.players, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsBrandingRoutes(api, { companySettings: clients.companySettings, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsWebhooksRoutes(api, { webhooks: clients.webhooks, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsPlayersRoutes(api, { players: clients.players, content: clients.content, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSavedViewRoutes(api, { tickets: clients.tickets, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsRulesRoutes(api, { tickets: clients.tickets, webhooks: clients.webhooks, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  registerAgentSettingsSlaRoutes(api, { tickets: clients.tickets, guards: agentGuards, bodyLimitBytes: config.BODY_LIMIT_BYTES });
  const liveFeed = live && deps.nc
    ? new AgentLiveFeed({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, logger, capacity: config.AGENT_LIVE_FEED_CAPACITY })
    : undefined;
  const agentStreams = registerAgentLiveRoutes(api, {
    feed: liveFeed,
    presence: presenceBoard,
    tickets: clients.tickets,
    sessions: caches.agentSessions,
    guards: agentGuards,
    settings: { heartbeatMs: config.AGENT_STREAM_HEARTBEAT_MS, streamsPerUser: config.AGENT_STREAMS_PER_USER },
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    logger,
  });
  api.assertComplete();
  rememberStaticMatches(router);

  const app = new Koa<GatewayState>();
  // DELETE /player waits for the erasure in every service, longer than any other request.
  app.use(
    requestContext((ctx) => {
      // "Answer all" of an incident sends one reply per ticket (up to 500): it has the longer
      // deadline of ANSWER_INCIDENT_TIMEOUT_MS, found by its path without a route match.
      if (ctx.method === "POST" && ctx.path.startsWith("/agent-api/incidents/") && ctx.path.endsWith("/answer")) return Math.max(config.REQUEST_TIMEOUT_MS, ANSWER_INCIDENT_TIMEOUT_MS);
      // Only a DELETE can be deletePlayer: other requests skip a second route match.
      if (ctx.method !== "DELETE") return config.REQUEST_TIMEOUT_MS;
      const operation = router.match(ctx.path, ctx.method).pathAndMethod.find((layer) => layer.name !== undefined)?.name;
      return operation === "deletePlayer" ? Math.max(config.REQUEST_TIMEOUT_MS, DELETE_PLAYER_TIMEOUT_MS) : config.REQUEST_TIMEOUT_MS;
    }),
  );
  app.use(responseHeaders() as Koa.Middleware<GatewayState>);
  // Without a registered tracer (tracing off) the middleware is left out, not run as a no-op.
  // Outside the request outcome, so that the access-log line names the request's span too.
  if (tracingActive()) app.use(tracing());
  app.use(requestOutcome(registry, logger));
  // CORS for /player-api, outside the error handler so that errors carry it too.
  app.use(playerApiCors(parseAllowedOrigins(config.WEB_SUPPORT_ORIGINS, config.WEB_SUPPORT_URL)) as Koa.Middleware<GatewayState>);
  app.use(errorHandler(logger));
  // Before anything of the request is read: a refusal under a flood costs next to nothing.
  app.use(requestAdmission({ maxReads: config.MAX_READS_IN_PROGRESS, maxWrites: config.MAX_WRITES_IN_PROGRESS }, registry) as Koa.Middleware<GatewayState>);
  app.use(dispatchRoutes(router) as Koa.Middleware<GatewayState>);
  app.use(unmatchedRoute(router) as Koa.Middleware<GatewayState>);
  // Errors are all answered by errorHandler; this only sees failures writing a response.
  app.on("error", (error: unknown) => logger.warn({ err: error }, "koa error"));

  // The REST port, with the graceful stop of libs/runtime: after the signal every answer carries
  // `Connection: close`, a request in progress is answered, an idle connection is closed. The
  // drain may take all of SHUTDOWN_TIMEOUT_MS but a second: what follows it is quick.
  const httpServer = createHttpServer({
    handler: app.callback(),
    host: config.HOST,
    port: config.PORT,
    drainTimeoutMs: Math.max(config.SHUTDOWN_TIMEOUT_MS - 1000, config.SHUTDOWN_TIMEOUT_MS / 2),
    logger,
    name: "gateway",
  });
  // A request Node cannot even parse never reaches Koa: answer it with the usual error body too.
  httpServer.server.on("clientError", (error: NodeJS.ErrnoException, socket: net.Socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    const body = JSON.stringify({ code: "invalid_argument", message: status === 431 ? "The request headers are too large" : "Malformed HTTP request" });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  const contentChanges = deps.nc ? createContentChangedConsumer({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, targets: caches, logger, registry }) : undefined;
  // Without NATS, live streams still follow their tickets by their periodic resync.
  const ticketChanges = deps.nc ? createTicketEventsConsumer({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, hub: streams, logger, registry }) : undefined;
  // Without NATS, a verified or ended session is seen by the other replicas when their copy expires.
  const sessionChanges = deps.nc ? createSessionChangedConsumer({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, sessions, logger, registry }) : undefined;
  // Without NATS, a session ended through another replica is refused here when its copy expires.
  const agentSessionChanges = deps.nc
    ? createAgentSessionsEndedConsumer({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, sessions: caches.agentSessions, logger, registry })
    : undefined;
  const workers: Startable[] = [
    ...[contentChanges, ticketChanges, sessionChanges, agentSessionChanges, liveFeed, presenceBoard].filter((consumer) => consumer !== undefined),
    // Stopped first of the workers, after the drain: what was counted since the last sync
    // still counts for the other replicas, and the keys' last uses reach content.
    apiRateLimiter,
    apiKeyUses,
  ];
  const host = createHost({
    config,
    logger,
    server: {
      start: () => httpServer.start(),
      // Readiness fails from the first moment (a load balancer stops sending new connections);
      // live streams never finish by themselves, so they are ended (clients resume with
      // Last-Event-ID) while the other requests drain.
      stop() {
        const drained = httpServer.stop();
        streams.closeAll();
        agentStreams.closeAll();
        return drained;
      },
    },
    workers,
    nc: deps.nc,
    registry,
  });

  return {
    app,
    caches,
    registry,
    start: () => host.start(),
    stop: () => host.stop(),
  };
}
