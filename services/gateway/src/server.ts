// Builds the gateway from its dependencies (no globals: tests start it in-process on port 0).
// Middleware, outermost first: request id -> access log -> errors -> router. Per route the
// router runs: API key check -> JSON body -> OpenAPI validation -> handler, so that an
// unknown route is a 404 and a missing key a 403 before any body is read.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type net from "node:net";
import { Router } from "@koa/router";
import type { NatsConnection } from "@support/bus";
import { AppError } from "@support/errors";
import { REQUEST_ID_HEADER, type Logger } from "@support/logging";
import Koa from "koa";
import { createApiKeyCache, createAuthMiddleware, type ApiKeyCache } from "./auth.ts";
import { createReferenceCaches, type ReferenceCaches } from "./cache.ts";
import type { GatewayClients } from "./clients.ts";
import type { GatewayConfig } from "./config.ts";
import { createContentChangedConsumer } from "./events/content-changed.consumer.ts";
import { createHealthChecker, registerHealthRoutes } from "./health.ts";
import { accessLog } from "./middleware/access-log.ts";
import { errorHandler, HttpProblem } from "./middleware/errors.ts";
import { jsonBody } from "./middleware/json-body.ts";
import { requestId } from "./middleware/request-id.ts";
import { registerDocsRoutes } from "./openapi/docs.ts";
import { registerAnnouncementRoutes } from "./routes/announcements.ts";
import { registerAttachmentRoutes } from "./routes/attachments.ts";
import { createApiRoutes } from "./routes/api.ts";
import { registerFieldRoutes } from "./routes/fields.ts";
import { registerGameRoutes } from "./routes/games.ts";
import { createPlayerApiRateLimiter, createSessionCache, registerPlayerSideRoutes } from "./routes/player-side.ts";
import { registerPlayerRoutes } from "./routes/players.ts";
import { registerSessionRoutes } from "./routes/sessions.ts";
import { registerTagRoutes } from "./routes/tags.ts";
import { registerTicketRoutes } from "./routes/tickets.ts";
import type { GatewayMiddleware, GatewayRouter, GatewayState } from "./types.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  clients: GatewayClients;
  /** Without NATS, cached entries live out their TTL (no event-driven eviction). */
  nc?: NatsConnection;
}

export interface Gateway {
  start(): Promise<{ port: number }>;
  /** Stops taking requests, lets in-flight ones finish (bounded), stops the event subscription. */
  stop(): Promise<void>;
  app: Koa<GatewayState>;
  caches: { reference: ReferenceCaches; keys: ApiKeyCache };
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
  const caches = {
    reference: createReferenceCaches({ ttlMs: config.REFERENCE_CACHE_TTL_MS, maxCompanies: config.REFERENCE_CACHE_MAX_COMPANIES }),
    keys: createApiKeyCache({ ttlMs: config.API_KEY_CACHE_TTL_MS, negativeTtlMs: config.API_KEY_NEGATIVE_CACHE_TTL_MS, max: config.API_KEY_CACHE_MAX }),
  };
  let stopping = false;

  // strict: a trailing slash is another path. `DELETE /announcements/` (an empty game id) must
  // not clear the shared announcement.
  const router: GatewayRouter = new Router<GatewayState>({ strict: true });
  registerHealthRoutes(router, createHealthChecker(clients.health, { timeoutMs: config.HEALTH_CHECK_TIMEOUT_MS, cacheMs: 1000 }), () => stopping);
  registerDocsRoutes(router);
  const api = createApiRoutes({
    router,
    authenticate: createAuthMiddleware({ content: clients.content, keys: caches.keys }),
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
  registerSessionRoutes(api, { players: clients.players, config });
  registerPlayerSideRoutes(api, {
    players: clients.players,
    tickets: clients.tickets,
    media: clients.media,
    playerSide: clients.playerSide,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    sessions: createSessionCache({ max: config.SESSION_CACHE_MAX }),
    limiter: createPlayerApiRateLimiter(clients.players, config),
  });
  api.assertComplete();

  const app = new Koa<GatewayState>();
  app.use(requestId());
  app.use(accessLog(logger));
  app.use(errorHandler(logger));
  app.use(router.routes());
  app.use(unmatchedRoute(router) as Koa.Middleware<GatewayState>);
  // Errors are all answered by errorHandler; this only sees failures writing a response.
  app.on("error", (error: unknown) => logger.warn({ err: error }, "koa error"));

  const server = http.createServer(app.callback());
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // A request Node cannot even parse never reaches Koa: answer it in the D3 shape too.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: net.Socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    const body = JSON.stringify({ code: "invalid_argument", message: status === 431 ? "The request headers are too large" : "Malformed HTTP request" });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  const contentChanges = deps.nc ? createContentChangedConsumer({ nc: deps.nc, natsPrefix: config.NATS_PREFIX, targets: caches, logger }) : undefined;

  return {
    app,
    caches,
    async start() {
      await contentChanges?.start();
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(config.PORT, config.HOST, () => {
          server.off("error", reject);
          const { port } = server.address() as net.AddressInfo;
          logger.info({ port }, "gateway listening");
          resolve({ port });
        });
      });
    },
    async stop() {
      stopping = true;
      await contentChanges?.stop();
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // In-flight requests get a moment (keep-alive connections close after their
        // response); then whatever is left is cut.
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, Math.min(5000, config.SHUTDOWN_TIMEOUT_MS / 2)).unref();
      });
    },
  };
}
