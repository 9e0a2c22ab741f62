// What every internal service does the same way: its JetStream stream, its outbox relay, its
// RPC port, and an orderly start and stop. A service's server.ts adds its routes and consumers.
import type { ConnectRouter } from "@connectrpc/connect";
import { createOutboxRelay, ensureStream, isBusConnected, streamNameFor, type NatsConnection, type OutboxRelay } from "@support/bus";
import { isDatabaseReachable, type Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createRpcServer } from "@support/rpc";

export interface Startable {
  start(): Promise<void> | void;
  stop(): Promise<void>;
}

export interface ServiceHostOptions {
  /** Short name: the NATS subject root of its events and the Postgres schema (e.g. "tickets"). */
  name: string;
  /** Fully-qualified proto service name reported by grpc.health.v1. */
  rpcServiceName: string;
  db: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  databaseUrl: string;
  nc: NatsConnection;
  natsPrefix: string;
  logger: Logger;
  host: string;
  port: number;
  routes: (router: ConnectRouter) => void;
  /** Consumers and jobs, started after the stream exists and stopped before the bus drains. */
  workers?: Startable[];
}

export interface ServiceHost {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
  relay: OutboxRelay;
}

export function createServiceHost(options: ServiceHostOptions): ServiceHost {
  const relay = createOutboxRelay({
    db: options.db,
    databaseUrl: options.databaseUrl,
    schema: options.name,
    nc: options.nc,
    subjectPrefix: options.natsPrefix,
    logger: options.logger,
  });
  const server = createRpcServer({
    serviceName: options.rpcServiceName,
    routes: options.routes,
    logger: options.logger,
    host: options.host,
    port: options.port,
    isReady: async () => isBusConnected(options.nc) && (await isDatabaseReachable(options.db)),
  });
  const workers = options.workers ?? [];

  return {
    relay,
    async start() {
      await ensureStream(options.nc, {
        name: streamNameFor(options.natsPrefix, options.name),
        subjects: [`${options.natsPrefix}${options.name}.>`],
      });
      relay.start();
      for (const worker of workers) await worker.start();
      return server.start();
    },
    // Order matters: stop taking requests, finish background work, publish what is pending,
    // then let go of NATS and Postgres.
    async stop() {
      await server.stop();
      for (const worker of [...workers].reverse()) await worker.stop();
      await relay.stop();
      await relay.flush().catch((error: unknown) => options.logger.warn({ err: error }, "outbox not flushed at shutdown"));
      if (!options.nc.isClosed()) await options.nc.drain();
      await options.db.destroy();
    },
  };
}
