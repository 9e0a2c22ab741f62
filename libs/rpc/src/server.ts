// A service's one listening port: Connect, gRPC and gRPC-Web (over h2c or HTTP/1.1) for RPCs,
// plus plain HTTP /healthz and /readyz for operators and probes that do not speak gRPC.
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { REQUEST_ID_HEADER, requestIdFrom, withRequestId, type Logger } from "@support/logging";
import { incomingTimeoutMs, withCallScope } from "./deadline.ts";
import { appErrorToConnect, toServiceError } from "./errors.ts";
import { registerHealthService, type ReadinessCheck } from "./health.ts";

export interface RpcServerOptions {
  /** Name reported by the health service, e.g. "content.v1.ContentService". */
  serviceName: string;
  routes: (router: ConnectRouter) => void;
  logger: Logger;
  /** Readiness: dependencies reachable. Liveness (/healthz) only needs the process to answer. */
  isReady: ReadinessCheck;
  host?: string;
  port: number;
}

export interface RpcServer {
  /** Starts listening; resolves with the bound port (useful with port 0 in tests). */
  start(): Promise<{ port: number }>;
  /** Stops taking requests, aborts streaming calls, closes connections. */
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
    return withRequestId(requestId, () =>
      withCallScope(scope, async () => {
        try {
          return await next(request);
        } catch (error) {
          const answer = toServiceError(error);
          if (answer.fault === "internal") logger.error({ err: error, procedure: request.method.name }, "unhandled error in RPC handler");
          else if (answer.fault === "unavailable") logger.warn({ err: error, procedure: request.method.name }, "dependency unavailable");
          throw appErrorToConnect(answer.error);
        }
      }),
    );
  };
}

export function createRpcServer(options: RpcServerOptions): RpcServer {
  const shutdown = new AbortController();
  let stopping = false;
  const isReady: ReadinessCheck = async () => !stopping && (await options.isReady());

  const handler = connectNodeAdapter({
    routes: (router) => {
      registerHealthService(router, options.serviceName, isReady);
      options.routes(router);
    },
    interceptors: [serverInterceptor(options.logger)],
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
  const http1Server = http.createServer(handler);
  const http2Server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  http2Server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      if (chunk.subarray(0, 3).toString("latin1") === "PRI") {
        // The HTTP/2 session reads the unshifted bytes itself (node#35475); resuming here
        // would hand them to nobody.
        http2Server.emit("connection", socket);
      } else {
        http1Server.emit("connection", socket);
        socket.resume();
      }
    });
    socket.on("error", () => socket.destroy());
  });

  return {
    start: () =>
      new Promise((resolve, reject) => {
        listener.once("error", reject);
        listener.listen(options.port, options.host ?? "0.0.0.0", () => {
          listener.off("error", reject);
          const address = listener.address() as net.AddressInfo;
          options.logger.info({ port: address.port }, "rpc server listening");
          resolve({ port: address.port });
        });
      }),
    stop: async () => {
      stopping = true;
      shutdown.abort();
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const session of sessions) session.close();
        http1Server.closeIdleConnections();
        // Give in-flight unary calls a moment, then cut what is left.
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 2000).unref();
      });
    },
  };
}
