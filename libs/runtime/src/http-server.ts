// A plain HTTP/1.1 server for the host (what a process serves that is not an RPC server, such as
// a REST API), with the graceful stop a load balancer needs: after stop() every answer carries
// `Connection: close`, a connection with a request in progress is never cut before its answer,
// one that sits idle is closed, and what still runs at the drain deadline is cut.
import http from "node:http";
import net from "node:net";
import type { Logger } from "@support/logging";
import type { Listener } from "./host.ts";

/** How long a connection must have been without a request to be closed as idle at stop. */
const IDLE_CLOSE_AFTER_MS = 500;

export interface HttpServerOptions {
  /** What answers each request (a Koa app's callback(), for example). */
  handler: http.RequestListener;
  host: string;
  port: number;
  /** How long requests in flight may take to finish at stop before their connections are cut. */
  drainTimeoutMs: number;
  logger: Logger;
  /** What the "listening" log line calls it. */
  name: string;
}

export interface HttpServer extends Listener {
  /** The Node server, for what is particular to one use (a `clientError` answer, for example). */
  server: http.Server;
  /** It listens, and has not been told to stop. */
  isStarted(): boolean;
  /** stop() was called: from that moment on (synchronously), every answer says `Connection: close`. */
  isStopping(): boolean;
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  let started = false;
  let stopping = false;
  const connections = new Map<net.Socket, { busy: number; idleSince: number }>();
  // Decided when the head is written, so that a request that started before the signal and is
  // answered after it is told too. In the responses' class, not wrapped per response.
  class GracefulResponse extends http.ServerResponse {}
  const writeHead = http.ServerResponse.prototype.writeHead;
  GracefulResponse.prototype.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (stopping && !this.headersSent) this.setHeader("Connection", "close");
    return writeHead.apply(this, args);
  } as typeof writeHead;
  const server = http.createServer({ ServerResponse: GracefulResponse }, (req, res) => {
    const connection = connections.get(req.socket);
    if (connection) connection.busy += 1;
    res.once("close", () => {
      if (!connection) return;
      connection.busy -= 1;
      connection.idleSince = performance.now();
    });
    options.handler(req, res);
  });
  server.on("connection", (socket: net.Socket) => {
    connections.set(socket, { busy: 0, idleSince: performance.now() });
    socket.on("close", () => connections.delete(socket));
  });

  return {
    server,
    isStarted: () => started,
    isStopping: () => stopping,
    start() {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(options.port, options.host, () => {
          server.off("error", reject);
          const { port } = server.address() as net.AddressInfo;
          started = true;
          options.logger.info({ port }, `${options.name} listening`);
          resolve({ port });
        });
      });
    },
    // The port stops accepting, requests in flight are answered (with `Connection: close`), idle
    // keep-alive connections are closed, and it resolves when no connection is left, or at
    // drainTimeoutMs by cutting what still runs. `stopping` is set before the first await.
    async stop() {
      stopping = true;
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => {
        // Only stop listening: http.Server#close() would also destroy every idle keep-alive
        // connection at once, including one whose next request is already on its way (that
        // request would be cut before it is even read). Idle connections are closed below.
        net.Server.prototype.close.call(server, () => resolve());
      });
      const deadline = performance.now() + options.drainTimeoutMs;
      // A connection is idle when it has had no request for a moment, seen on two rounds in a
      // row: a request already on its way (in the kernel's buffer, or sent by a client that was
      // just answered) is read in between, and answered with `Connection: close` rather than
      // cut. The race with a client that sends on an idle connection just as it closes is the
      // one every HTTP/1.1 server has; such a request was never read, so it had no effect.
      let idleLastRound = new Map<net.Socket, number>();
      while (connections.size > 0) {
        const now = performance.now();
        const idleNow = new Map<net.Socket, number>();
        for (const [socket, connection] of connections) {
          if (now >= deadline) {
            socket.destroy();
          } else if (connection.busy === 0 && now - connection.idleSince >= IDLE_CLOSE_AFTER_MS) {
            if (idleLastRound.get(socket) === connection.idleSince) socket.destroy();
            else idleNow.set(socket, connection.idleSince);
          }
        }
        idleLastRound = idleNow;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await closed;
    },
  };
}
