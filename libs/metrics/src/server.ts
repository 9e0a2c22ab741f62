// The metrics listener of a process: GET /metrics in Prometheus text format on its own port
// (METRICS_HOST:METRICS_PORT), never on the public one; anything else is a 404.
import http from "node:http";
import type net from "node:net";
import type { Logger } from "@support/logging";
import type { Registry } from "prom-client";

export interface MetricsServerOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  registry: Registry;
  logger: Logger;
}

export interface MetricsServer {
  /** The bound port. */
  port: number;
  /** Stops listening and closes its connections (a scrape in progress gets a moment to finish). */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 1000;

export function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, logger } = options;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": registry.contentType });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        logger.warn({ err: error }, "metrics scrape failed");
        res.writeHead(500, { "content-type": "text/plain" }).end("Metrics unavailable\n");
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const { port } = server.address() as net.AddressInfo;
      logger.info({ port }, "metrics listening");
      let stopped: Promise<void> | undefined;
      resolve({
        port,
        stop: () =>
          (stopped ??= new Promise<void>((done) => {
            // close() closes idle keep-alive connections itself; a scrape in progress is cut after a grace.
            const cut = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
            server.close(() => {
              clearTimeout(cut);
              done();
            });
          })),
      });
    });
  });
}
