// What every process that serves does the same way: its metrics listener, its workers, the
// server that takes requests, and an orderly start and stop (createHost); and what every
// internal service adds to it: its JetStream stream, its outbox relay and its RPC port
// (createServiceHost). A service's server.ts adds its routes and consumers.
import type { ConnectRouter } from "@connectrpc/connect";
import { createOutboxRelay, ensureStream, isBusConnected, registerOutboxMetrics, streamNameFor, type NatsConnection, type OutboxRelay } from "@support/bus";
import { isDatabaseReachable, registerPoolMetrics, type Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createMetricsRegistry, startMetricsServer, type MetricsServer, type Registry } from "@support/metrics";
import { calleeOf, createRpcServer, loadServiceVerifier, type IdentityName, type ServiceIdentitySettings } from "@support/rpc";

export interface Startable {
  start(): Promise<void> | void;
  stop(): Promise<void>;
}

export interface HostConfig extends ServiceIdentitySettings {
  HOST: string;
  PORT: number;
  DATABASE_URL: string;
  NATS_PREFIX: string;
  /** JetStream replicas of the service's stream; 1 when not given. */
  NATS_STREAM_REPLICAS?: number;
  /** The whole shutdown's bound (runUntilSignal exits at it); 10 s when not given. */
  SHUTDOWN_TIMEOUT_MS?: number;
  /** Where GET /metrics is served (0: any free port). */
  METRICS_HOST: string;
  METRICS_PORT: number;
}

/**
 * How long calls in flight may take to finish at stop: the shutdown bound less the time the
 * rest of the ordered shutdown needs (workers, outbox, NATS, pool), 3 s or half of it.
 */
export function drainTimeoutOf(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs - Math.min(3000, shutdownTimeoutMs / 2);
}

/** What takes requests: an RPC server (libs/rpc) or an HTTP server (createHttpServer). */
export interface Listener {
  /** Starts taking requests; resolves with the bound port. */
  start(): Promise<{ port: number }>;
  /** Stops taking requests and lets those in flight finish (cut at its own drain deadline). */
  stop(): Promise<void>;
}

export interface HostOptions {
  /** Where GET /metrics is served (0: any free port). */
  config: Pick<HostConfig, "METRICS_HOST" | "METRICS_PORT">;
  logger: Logger;
  server: Listener;
  /** Consumers, jobs, relays: started in order before the server, stopped in reverse after it. */
  workers?: Startable[];
  /** Let go of after the workers: NATS drained, then the pool destroyed. */
  nc?: NatsConnection;
  db?: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The process's metrics, when something records into them before the host exists; a new registry otherwise. */
  registry?: Registry;
}

export interface Host {
  /** Resolves with the bound server and metrics ports (useful with port 0 in tests). */
  start(): Promise<{ port: number; metricsPort: number }>;
  stop(): Promise<void>;
  /** What GET /metrics serves. */
  registry: Registry;
}

/**
 * The lifecycle every serving process shares. Start: the metrics listener first (a slow start
 * can be watched), the workers, then the server. Stop, in this order: stop taking requests and
 * finish those in flight, stop the workers (last started, first stopped), drain NATS, destroy
 * the pool, and the metrics listener last (the drain can be watched).
 */
export function createHost(options: HostOptions): Host {
  const registry = options.registry ?? createMetricsRegistry();
  const workers = options.workers ?? [];
  let metrics: MetricsServer | undefined;
  return {
    registry,
    async start() {
      metrics = await startMetricsServer({ host: options.config.METRICS_HOST, port: options.config.METRICS_PORT, registry, logger: options.logger });
      try {
        for (const worker of workers) await worker.start();
        const { port } = await options.server.start();
        return { port, metricsPort: metrics.port };
      } catch (error) {
        await metrics.stop();
        throw error;
      }
    },
    async stop() {
      await options.server.stop();
      for (const worker of [...workers].reverse()) await worker.stop();
      if (options.nc && !options.nc.isClosed()) await options.nc.drain();
      await options.db?.destroy();
      await metrics?.stop();
    },
  };
}

export interface ServiceHostOptions {
  /** Short name: the NATS subject root of its events and the Postgres schema (e.g. "tickets"). */
  name: string;
  /** Fully-qualified proto service name reported by grpc.health.v1. */
  rpcServiceName: string;
  /** The service's own settings (serviceConfigSpecs + portSpec): where it listens, its database and NATS prefix. */
  config: HostConfig;
  db: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  nc: NatsConnection;
  logger: Logger;
  routes: (router: ConnectRouter) => void;
  /** Consumers and jobs, started after the stream exists and stopped before the bus drains. */
  workers?: Startable[];
  /**
   * The process's metrics, when the service records into them before the host exists (its
   * RPC clients, its consumers); a new registry otherwise.
   */
  registry?: Registry;
}

export interface ServiceHost {
  /** Resolves with the bound RPC and metrics ports (useful with port 0 in tests). */
  start(): Promise<{ port: number; metricsPort: number }>;
  stop(): Promise<void>;
  relay: OutboxRelay;
  /** What GET /metrics serves. */
  registry: Registry;
}

export function createServiceHost(options: ServiceHostOptions): ServiceHost {
  const { config } = options;
  // Every RPC but health checks needs a caller identity the service trusts (refuses to start in
  // production without keys; a development process without keys trusts only itself).
  // Its name is the package of its RPC service (content.v1.ContentService: content), which is
  // what the callers address their tokens to.
  const identity = loadServiceVerifier(calleeOf(options.rpcServiceName) as IdentityName, config);
  if (identity.development) options.logger.info("no service identity keys: only calls from this same process are accepted (development)");
  const registry = options.registry ?? createMetricsRegistry();
  const relay = createOutboxRelay({
    db: options.db,
    databaseUrl: config.DATABASE_URL,
    schema: options.name,
    nc: options.nc,
    subjectPrefix: config.NATS_PREFIX,
    logger: options.logger,
  });
  const server = createRpcServer({
    serviceName: options.rpcServiceName,
    routes: options.routes,
    logger: options.logger,
    host: config.HOST,
    port: config.PORT,
    identity: identity.verifier,
    drainTimeoutMs: drainTimeoutOf(config.SHUTDOWN_TIMEOUT_MS ?? 10_000),
    isReady: async () => isBusConnected(options.nc) && (await isDatabaseReachable(options.db)),
    registry,
  });
  registerPoolMetrics(registry, options.db);
  registerOutboxMetrics(registry, options.db, (error) => options.logger.warn({ err: error }, "outbox not counted for metrics"));
  // The service's stream exists before anything publishes or consumes; what is pending in the
  // outbox is published after the service's own workers stopped.
  const events: Startable = {
    async start() {
      await ensureStream(options.nc, {
        name: streamNameFor(config.NATS_PREFIX, options.name),
        subjects: [`${config.NATS_PREFIX}${options.name}.>`],
        replicas: config.NATS_STREAM_REPLICAS ?? 1,
      }, options.logger);
      relay.start();
    },
    async stop() {
      await relay.stop();
      await relay.flush().catch((error: unknown) => options.logger.warn({ err: error }, "outbox not flushed at shutdown"));
    },
  };
  const host = createHost({
    config,
    logger: options.logger,
    server,
    workers: [events, ...(options.workers ?? [])],
    nc: options.nc,
    db: options.db,
    registry,
  });
  return { relay, registry, start: () => host.start(), stop: () => host.stop() };
}
