// A service's one listening port: Connect, gRPC and gRPC-Web (over h2c or HTTP/1.1) for RPCs,
// plus plain HTTP /healthz and /readyz for operators and probes that do not speak gRPC.
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { REQUEST_ID_HEADER, requestIdFrom, withRequestContext, type Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { incomingTimeoutMs, scopedContext } from "./deadline.ts";
import { appErrorToConnect, toServiceError } from "./errors.ts";
import { registerHealthService, type ReadinessCheck } from "./health.ts";
import { serviceIdentityGate, type ServiceVerifier } from "./identity.ts";
import { metricsInterceptors } from "./metrics.ts";
import { tracingServerInterceptor } from "./tracing.ts";

export interface RpcServerOptions {
  /** Name reported by the health service, e.g. "content.v1.ContentService". */
  serviceName: string;
  routes: (router: ConnectRouter) => void;
  logger: Logger;
  /** Readiness: dependencies reachable. Liveness (/healthz) only needs the process to answer. */
  isReady: ReadinessCheck;
  /** Listening address; 127.0.0.1 unless told otherwise (a cluster sets HOST=0.0.0.0). */
  host?: string;
  port: number;
  /**
   * Checks the caller's service identity on every RPC except grpc.health.v1 (identity.ts). The
   * service host always passes one; without it every caller is accepted (library tests only).
   */
  identity?: ServiceVerifier;
  /**
   * How long stop() lets calls in flight finish before it cuts them (their handler signals are
   * aborted and the connections closed). Defaults to 5 s; the service host derives it from
   * SHUTDOWN_TIMEOUT_MS, leaving time for the rest of the shutdown.
   */
  drainTimeoutMs?: number;
  /** Where rpc_server_duration_seconds is recorded; none without it. */
  registry?: Registry;
}

export interface RpcServer {
  /** Starts listening; resolves with the bound port (useful with port 0 in tests). */
  start(): Promise<{ port: number }>;
  /**
   * Stops gracefully: readiness fails, no new connections or HTTP/2 streams are taken (GOAWAY),
   * calls in flight finish, idle connections close at once, and what still runs after
   * `drainTimeoutMs` is cut. Resolves when no connection is left.
   */
  stop(): Promise<void>;
}

/**
 * Runs each call under the caller's request id and deadline (outgoing calls made by the handler
 * end with it, see deadline.ts), and answers every error as a Connect error carrying its
 * AppError code: a domain error as it is, a dependency that is unavailable (a database that
 * refuses or drops connections, a socket reset) as `unavailable`, anything else as `internal`
 * with a fixed message. The original error is logged, never sent.
 */
function serverInterceptor(logger: Logger): Interceptor {
  return (next) => async (request) => {
    const requestId = requestIdFrom(request.header.get(REQUEST_ID_HEADER));
    const timeoutMs = incomingTimeoutMs(request.header);
    const scope = { deadline: timeoutMs === undefined ? undefined : Date.now() + timeoutMs, signal: request.signal };
    // A read (declared NO_SIDE_EFFECTS in the proto) may take the database pool's read lane.
    const readOnly = request.method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;
    return withRequestContext({ ...scopedContext(scope, requestId), readOnly }, async () => {
      try {
        const response = await next(request);
        // One line per answered call at debug level: which replica served what (balancing checks).
        if (logger.isLevelEnabled("debug")) logger.debug({ procedure: request.method.name }, "rpc call");
        return response;
      } catch (error) {
        const answer = toServiceError(error);
        if (answer.fault === "internal") logger.error({ err: error, procedure: request.method.name }, "unhandled error in RPC handler");
        else if (answer.fault === "unavailable") logger.warn({ err: error, procedure: request.method.name }, "dependency unavailable");
        throw appErrorToConnect(answer.error);
      }
    });
  };
}

/** At the drain deadline: how long aborted handlers get to answer, then how long cancelled streams get to close. */
const CUT_GRACE_MS = 100;

export function createRpcServer(options: RpcServerOptions): RpcServer {
  const drainTimeoutMs = options.drainTimeoutMs ?? 5000;
  // Aborted at the drain deadline only: until then a call in flight keeps its handler signal.
  const shutdown = new AbortController();
  let stopping = false;
  // Checked after the dependencies, so that a check still running when stop() begins fails too.
  const isReady: ReadinessCheck = async () => (await options.isReady()) && !stopping;

  const handler = connectNodeAdapter({
    routes: (router) => {
      registerHealthService(router, options.serviceName, isReady);
      options.routes(router);
    },
    // Tracing outermost (the error log lines of serverInterceptor carry the call's trace); the
    // metrics outside serverInterceptor, so they see the Connect error the service answers with.
    // The identity check before the handler's scope, so that a refused call runs nothing.
    interceptors: [
      tracingServerInterceptor(),
      ...metricsInterceptors("server", options.registry),
      ...(options.identity ? [serviceIdentityGate(options.identity, (reason, procedure) => options.logger.warn({ reason, procedure }, "rpc refused: service identity"))] : []),
      serverInterceptor(options.logger),
    ],
    shutdownSignal: shutdown.signal,
    fallback: (req, res) => {
      const path = (req.url ?? "").split("?")[0];
      if (path === "/healthz" || path === "/readyz") {
        const check = path === "/healthz" ? Promise.resolve(!stopping) : isReady();
        void check.then((ok) => {
          res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
          res.end(JSON.stringify({ status: ok ? "ok" : "unavailable" }));
        });
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "not_found", message: "Not found" }));
    },
  });

  // Plaintext HTTP/2 (h2c, what gRPC clients speak) and HTTP/1.1 share the port: the first
  // bytes of a connection tell them apart (an h2c connection opens with "PRI * HTTP/2.0").
  // An HTTP/1.1 answer whose head is written after stop() began carries `Connection: close`,
  // so that Node closes the connection once it is sent (a request in progress is told too).
  const http1Connections = new Map<net.Socket, { busy: number; requests: number }>();
  const http1Server = http.createServer((req, res) => {
    const connection = http1Connections.get(req.socket);
    if (connection) {
      connection.busy += 1;
      connection.requests += 1;
      res.once("close", () => (connection.busy -= 1));
    }
    const writeHead = res.writeHead;
    res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
      if (stopping && !this.headersSent) this.setHeader("Connection", "close");
      return writeHead.apply(this, args);
    } as typeof writeHead;
    handler(req, res);
  });
  const streams = new Set<http2.ServerHttp2Stream>();
  const http2Server = http2.createServer((req, res) => {
    streams.add(req.stream);
    req.stream.once("close", () => streams.delete(req.stream));
    handler(req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  http2Server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    // A connection accepted just before stop() whose first bytes arrive after it.
    if (stopping) session.close();
  });
  const sockets = new Set<net.Socket>();
  /** Connections whose first bytes have not arrived yet (neither HTTP/2 nor HTTP/1.1 so far). */
  const silent = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    silent.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      silent.delete(socket);
    });
    socket.once("data", (chunk: Buffer) => {
      silent.delete(socket);
      socket.pause();
      socket.unshift(chunk);
      if (chunk.subarray(0, 3).toString("latin1") === "PRI") {
        // The HTTP/2 session reads the unshifted bytes itself (node#35475); resuming here
        // would hand them to nobody.
        http2Server.emit("connection", socket);
      } else {
        http1Connections.set(socket, { busy: 0, requests: 0 });
        socket.on("close", () => http1Connections.delete(socket));
        http1Server.emit("connection", socket);
        socket.resume();
      }
    });
    socket.on("error", () => socket.destroy());
  });

  // Stops once, however often it is called (see RpcServer.stop).
  async function drainAndClose(): Promise<void> {
    stopping = true;
    const deadline = performance.now() + drainTimeoutMs;
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    // GOAWAY on every HTTP/2 session: streams already open finish, new ones are refused (the
    // client opens a new connection, to another replica), and a session without open streams
    // closes at once.
    for (const session of sessions) session.close();
    // HTTP/1.1 connections close after their answer (`Connection: close`); one that stays idle
    // for a whole round (no request read in between, so none was on its way) is closed then.
    // So is a connection still silent a round after the signal: it sent nothing yet.
    // (http.Server#closeIdleConnections does not see connections handed over by `emit`.)
    const idleHttp1 = () => new Map([...http1Connections].filter(([, c]) => c.busy === 0).map(([socket, c]) => [socket, c.requests]));
    let idleLastRound = idleHttp1();
    let silentLastRound = new Set(silent);
    while (sockets.size > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const socket of silentLastRound) if (silent.has(socket)) socket.destroy();
      for (const [socket, requests] of idleLastRound) {
        const connection = http1Connections.get(socket);
        if (connection && connection.busy === 0 && connection.requests === requests) socket.destroy();
      }
      silentLastRound = new Set(silent);
      idleLastRound = idleHttp1();
    }
    if (sockets.size > 0) {
      // The deadline: handlers still running are aborted (a handler that stops answers with an
      // error of its own); a moment later the streams still open are reset with CANCEL, which
      // a client reads as a cancelled call whose outcome is unknown (not as an internal error),
      // and what is left after another moment is closed.
      options.logger.warn({ connections: sockets.size, streams: streams.size }, "calls still running at the shutdown deadline are cut");
      shutdown.abort(new ConnectError("the server is shutting down", Code.Unavailable));
      await new Promise((resolve) => setTimeout(resolve, CUT_GRACE_MS));
      for (const stream of streams) stream.close(http2.constants.NGHTTP2_CANCEL);
      for (const socket of http1Connections.keys()) socket.destroy();
      const cutAt = performance.now();
      while (sockets.size > 0 && performance.now() - cutAt < CUT_GRACE_MS) await new Promise((resolve) => setTimeout(resolve, 10));
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
    }
    await closed;
  }

  let stopped: Promise<void> | undefined;
  return {
    start: () =>
      new Promise((resolve, reject) => {
        listener.once("error", reject);
        listener.listen(options.port, options.host ?? "127.0.0.1", () => {
          listener.off("error", reject);
          const address = listener.address() as net.AddressInfo;
          options.logger.info({ port: address.port }, "rpc server listening");
          resolve({ port: address.port });
        });
      }),
    stop: () => (stopped ??= drainAndClose()),
  };
}
