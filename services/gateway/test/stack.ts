// The whole backend in-process for the gateway's integration tests: a fresh database and NATS
// prefix (testkit), the five services on free ports with their migrations applied, and the
// gateway in front of them. Tenants are provisioned with the real admin tool (tools/admin)
// over the services' admin RPCs, so the data and the events are exactly what production produces.
import { createHash, randomBytes } from "node:crypto";
import { runAdmin } from "@support/admin";
import { connectBus } from "@support/bus";
import { createServer as createContentServer, loadContentConfig, migrations as contentMigrations } from "@support/content";
import { createDb, migrateToLatest, sql, type Migration } from "@support/db";
import { createLogger, type Logger } from "@support/logging";
import { createMetricsRegistry } from "@support/metrics";
import { createServer as createMediaServer, loadMediaConfig, migrations as mediaMigrations } from "@support/media";
import { createServer as createPlayersServer, loadPlayersConfig, migrations as playersMigrations } from "@support/players";
import type { ServiceHost } from "@support/runtime";
import { createTestInfra, createTestServiceIdentities, freePort, startSmtpReceiver, withDatabase, type DatabaseTemplate, type SmtpReceiver, type TestInfra, type TestServiceIdentities } from "@support/testkit";
import { createServer as createTicketsServer, loadTicketsConfig, migrations as ticketsMigrations } from "@support/tickets";
import { createServer as createWebhooksServer, loadWebhooksConfig, migrations as webhooksMigrations } from "@support/webhooks";
import { createServer as createEmailServer, loadEmailConfig, migrations as emailMigrations } from "@support/email";
import { expect } from "vitest";
import { createClients, createServer, loadGatewayConfig, type Gateway, type GatewayConfig, type ServiceName } from "../src/index.ts";
import { operations } from "../src/openapi/operations.ts";
import { validateResponse } from "../src/openapi/validation.ts";

export interface StackResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface RequestOptions extends Omit<RequestInit, "body"> {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Serialized as the JSON body with `content-type: application/json`. */
  json?: unknown;
  body?: string;
}

export interface TenantResult {
  companyId: string;
  apiKeys: Record<string, string>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }>; collectors: Record<string, string> }>;
  users: Record<string, string>;
}

export interface Stack {
  infra: TestInfra;
  /** The processes' service identity keys, when the stack was started with `identities`. */
  identities?: TestServiceIdentities;
  /** The SMTP receiver every service sends its mail to (SMTP_URL). */
  smtp: SmtpReceiver;
  gateway: Gateway;
  url: string;
  /** Where each internal service answers (Connect), for what the REST surface does not show. */
  serviceUrls: Record<Exclude<ServiceName, "gateway">, string>;
  /** GET /metrics of the gateway and of each service (their current instances). */
  metricsUrls(): Record<ServiceName | "gateway", string>;
  /**
   * A request to the gateway. Every answer is checked against the OpenAPI document: the
   * operation's declared status, body schema and required headers (or, for a path the
   * document does not have, the `Error` schema).
   */
  request(path: string, options?: RequestOptions): Promise<StackResponse>;
  /** Runs the admin tool (`pnpm admin ...`) against the stack's content and players services. */
  admin<T = Record<string, unknown>>(args: string[], stdin?: string): Promise<T>;
  applyTenant(file: unknown): Promise<TenantResult>;
  /**
   * Another gateway replica in front of the same services (without NATS unless `options.nats`),
   * for state that replicas must share; `overrides` apply on top of the first gateway's
   * configuration. Stopped with the stack.
   */
  startGateway(overrides?: Partial<GatewayConfig>, options?: { nats?: boolean }): Promise<{ url: string; request: Stack["request"]; stop(): Promise<void> }>;
  stopService(name: ServiceName): Promise<void>;
  /** Starts a stopped service again, a new instance on the same port, database and NATS prefix (a restart). */
  startService(name: Exclude<ServiceName, "gateway">): Promise<void>;
  /** Starts one more instance of a service on its own port, same database and NATS prefix (a second replica); stopped with the stack. */
  startServiceReplica(name: Exclude<ServiceName, "gateway">): Promise<void>;
  stop(): Promise<void>;
}

interface ServiceModule {
  name: Exclude<ServiceName, "gateway">;
  migrations: Record<string, Migration>;
  start(env: Record<string, string>, logger: Logger): Promise<{ host: ServiceHost; port: number; metricsPort: number }>;
}

/** Builds and starts one service like its main.ts does, on a free port. */
function serviceModule<C extends { PORT: number; DATABASE_URL: string; DB_POOL_MAX: number; NATS_URL: string }>(
  name: ServiceModule["name"],
  migrations: Record<string, Migration>,
  loadConfig: (env: Record<string, string>) => C,
  createHost: (deps: { config: C; logger: Logger; db: never; nc: never }) => ServiceHost,
): ServiceModule {
  return {
    name,
    migrations,
    async start(env, logger) {
      const config = { ...loadConfig(env), PORT: Number(env.PORT ?? 0) };
      const db = createDb({ url: config.DATABASE_URL, schema: name, maxConnections: 4 });
      const nc = await connectBus(config.NATS_URL, name);
      const host = createHost({ config, logger, db: db as never, nc: nc as never });
      const { port, metricsPort } = await host.start();
      return { host, port, metricsPort };
    },
  };
}

// Started in this order, each on a port reserved up front and told where every other one
// answers (tickets calls players; players calls tickets and media for erasures).
const services: ServiceModule[] = [
  serviceModule("content", contentMigrations, loadContentConfig, createContentServer as never),
  serviceModule("players", playersMigrations, loadPlayersConfig, createPlayersServer as never),
  serviceModule("media", mediaMigrations, loadMediaConfig, createMediaServer as never),
  serviceModule("tickets", ticketsMigrations, loadTicketsConfig, createTicketsServer as never),
  serviceModule("webhooks", webhooksMigrations, loadWebhooksConfig, createWebhooksServer as never),
  serviceModule("email", emailMigrations, loadEmailConfig, createEmailServer as never),
];

/**
 * Every service's schema migrated, once per version of the migrations: each stack's database is
 * a copy of it. The key hashes each migration's name and code, so that a migration edited in
 * place (while it is written) makes a new template.
 */
const migratedTemplate: DatabaseTemplate = {
  key: createHash("sha256")
    .update(JSON.stringify(services.map((service) => [service.name, Object.entries(service.migrations).map(([name, migration]) => [name, String(migration.up), String(migration.down ?? "")])])))
    .digest("hex")
    .slice(0, 32),
  async prepare(url) {
    for (const service of services) {
      const db = createDb({ url, schema: service.name, maxConnections: 1 });
      try {
        await migrateToLatest(db, service.name, service.migrations);
      } finally {
        await db.destroy();
      }
    }
  },
};

/** The operation of the document serving `method path`, if any. */
function operationFor(method: string, path: string): string | undefined {
  const pathname = path.split("?")[0]!;
  const wanted = method === "HEAD" ? "get" : method.toLowerCase();
  for (const operation of operations.values()) {
    if (operation.method !== wanted) continue;
    const pattern = new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`);
    if (pattern.test(pathname)) return operation.operationId;
  }
  return undefined;
}

/** Checks an answer against the document; throws (failing the test) with the issues. */
export function expectContract(method: string, path: string, response: StackResponse): void {
  const pathname = path.split("?")[0]!;
  if (["/healthz", "/healthz/dependencies", "/readyz", "/openapi.json", "/docs"].includes(pathname) || method === "HEAD" || method === "OPTIONS") return;
  const operationId = operationFor(method, path);
  const issues = operationId
    ? validateResponse(operationId, response.status, response.body, response.headers)
    : // Unknown route (404) or wrong method (405): no operation declares them, but the body is
      // the document's Error schema, reached through an operation that declares one.
      validateResponse("deleteGameAnnouncement", 404, response.body);
  expect(issues, `${method} ${path} -> ${response.status} ${response.text} does not match the OpenAPI document`).toBeNull();
  if (!operationId) expect(response.headers.get("x-request-id")).toBeTruthy();
}

/**
 * `identities`: every process gets its own service identity key and every service the trust of
 * them all, as deployed; test clients of the services then need a key of their own (see
 * `Stack.identities`). Without it, the in-process services trust this process's calls.
 */
export async function startStack(options: { gateway?: Partial<GatewayConfig>; env?: Record<string, string>; identities?: boolean } = {}): Promise<Stack> {
  const identities = options.identities ? createTestServiceIdentities() : undefined;
  const infra = await createTestInfra({ template: migratedTemplate });
  const smtp = await startSmtpReceiver();
  const logger = createLogger({ service: "stack", level: process.env.STACK_LOG_LEVEL ?? "silent" });
  // `env` reaches every service (e.g. PLAYER_DELETION_DELAY_SECONDS).
  const adminToken = randomBytes(24).toString("base64url");
  const env = {
    ...infra.env,
    NATS_PREFIX: infra.natsPrefix,
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    ADMIN_TOKEN: adminToken,
    // The tests' webhook receivers listen on this machine over plain http.
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
    SMTP_URL: smtp.url,
    ...options.env,
  };
  const running = new Map<ServiceName, ServiceHost>();
  const ports: Partial<Record<ServiceName, number>> = {};
  const metricsPorts: Partial<Record<ServiceName | "gateway", number>> = {};
  let gateway: Gateway | undefined;
  let gatewayNc: Awaited<ReturnType<typeof connectBus>> | undefined;
  const replicas: Gateway[] = [];
  const replicaConnections: Awaited<ReturnType<typeof connectBus>>[] = [];

  const serviceReplicas: ServiceHost[] = [];

  const stopAll = async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.allSettled(serviceReplicas.map((host) => host.stop()));
    await Promise.all(replicaConnections.map((nc) => (nc.isClosed() ? undefined : nc.drain())));
    await gateway?.stop();
    if (gatewayNc && !gatewayNc.isClosed()) await gatewayNc.drain();
    const stopped = await Promise.allSettled([...running.values()].map((host) => host.stop()));
    for (const result of stopped) if (result.status === "rejected") console.error("service stop failed", result.reason);
    running.clear();
    await connectionsClosed(infra);
    await infra.stop();
    await smtp.stop();
  };

  try {
    for (const service of services) ports[service.name] = await freePort();
    const urls = Object.fromEntries(Object.entries(ports).map(([name, port]) => [`${name.toUpperCase()}_URL`, `http://127.0.0.1:${port}`]));
    const startService = async (service: ServiceModule) => {
      const { host, metricsPort } = await service.start({ ...env, ...urls, ...identities?.env(service.name), PORT: String(ports[service.name]) }, logger);
      running.set(service.name, host);
      metricsPorts[service.name] = metricsPort;
    };
    for (const service of services) await startService(service);
    const config: GatewayConfig = {
      ...loadGatewayConfig({
        ...identities?.env("gateway"),
        ...env,
        CONTENT_URL: `http://127.0.0.1:${ports.content}`,
        TICKETS_URL: `http://127.0.0.1:${ports.tickets}`,
        MEDIA_URL: `http://127.0.0.1:${ports.media}`,
        PLAYERS_URL: `http://127.0.0.1:${ports.players}`,
        WEBHOOKS_URL: `http://127.0.0.1:${ports.webhooks}`,
        EMAIL_URL: `http://127.0.0.1:${ports.email}`,
        // A service restarted by a test is called again soon after, not after the default 5 s.
        RPC_BREAKER_OPEN_MS: "300",
      }),
      PORT: 0,
      ...options.gateway,
    };
    gatewayNc = await connectBus(infra.natsUrl, "gateway");
    const registry = createMetricsRegistry();
    gateway = createServer({ config, logger, clients: createClients(config, registry), nc: gatewayNc, registry });
    const { port, metricsPort } = await gateway.start();
    metricsPorts.gateway = metricsPort;
    const url = `http://127.0.0.1:${port}`;

    const admin = <T>(args: string[], stdin?: string): Promise<T> =>
      runAdmin<T>(args, { CONTENT_URL: urls.CONTENT_URL, PLAYERS_URL: urls.PLAYERS_URL, WEBHOOKS_URL: urls.WEBHOOKS_URL, TICKETS_URL: urls.TICKETS_URL, ADMIN_TOKEN: adminToken, ...identities?.env("admin"), LOG_LEVEL: "warn" }, stdin);

    return {
      infra,
      identities,
      smtp,
      gateway,
      url,
      serviceUrls: {
        content: urls.CONTENT_URL!,
        tickets: urls.TICKETS_URL!,
        media: urls.MEDIA_URL!,
        players: urls.PLAYERS_URL!,
        webhooks: urls.WEBHOOKS_URL!,
        email: urls.EMAIL_URL!,
      },
      metricsUrls: () =>
        Object.fromEntries(Object.entries(metricsPorts).map(([name, metricsPort]) => [name, `http://127.0.0.1:${metricsPort}/metrics`])) as Record<
          ServiceName | "gateway",
          string
        >,
      request: requestTo(url),
      admin,
      applyTenant: (file) => admin<TenantResult>(["apply", "-"], JSON.stringify(file)),
      async startServiceReplica(name) {
        const service = services.find((candidate) => candidate.name === name)!;
        const { host } = await service.start({ ...env, ...urls, ...identities?.env(name), PORT: String(await freePort()) }, logger);
        serviceReplicas.push(host);
      },
      async startGateway(overrides = {}, replicaOptions = {}) {
        const replicaConfig: GatewayConfig = { ...config, ...overrides, PORT: 0 };
        const nc = replicaOptions.nats ? await connectBus(infra.natsUrl, "gateway-replica") : undefined;
        if (nc) replicaConnections.push(nc);
        const replica = createServer({ config: replicaConfig, logger, clients: createClients(replicaConfig), nc });
        replicas.push(replica);
        const replicaUrl = `http://127.0.0.1:${(await replica.start()).port}`;
        return { url: replicaUrl, request: requestTo(replicaUrl), stop: () => replica.stop() };
      },
      async stopService(name) {
        await running.get(name)?.stop();
        running.delete(name);
      },
      async startService(name) {
        if (running.has(name)) throw new Error(`${name} is running`);
        await startService(services.find((service) => service.name === name)!);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll().catch(() => {});
    throw error;
  }
}

/** Requests to a gateway at `baseUrl`, each answer checked against the OpenAPI document. */
function requestTo(baseUrl: string): Stack["request"] {
  return async (path, requestOptions = {}) => {
    const { key, json, ...init } = requestOptions;
    const headers = new Headers(init.headers);
    if (key !== undefined) headers.set("authorization", `Bearer ${key}`);
    let body = init.body;
    if (json !== undefined) {
      body = JSON.stringify(json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    const method = (init.method ?? "GET").toUpperCase();
    const answer = await fetch(baseUrl + path, { ...init, method, headers, body, redirect: "manual" });
    const text = await answer.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const response = { status: answer.status, headers: answer.headers, body: parsed, text };
    expectContract(method, path, response);
    return response;
  };
}

/**
 * Waits until no session of the stack is left on its database. A pool's `end()` resolves
 * before its sockets are gone, and the testkit drops the database WITH (FORCE): a backend
 * terminated in that gap surfaces as an unhandled 57P01 error on the closing client.
 */
async function connectionsClosed(infra: TestInfra): Promise<void> {
  const admin = createDb<unknown>({ url: withDatabase(infra.databaseUrl, "postgres"), schema: "public", maxConnections: 1 });
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = ${infra.databaseName}`.execute(admin);
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await admin.destroy();
  }
}

/** Polls `check` until it returns true (events travel through the outbox and NATS). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The JSON pointers a refused request's error body names (`details.issues[].path`). */
export const issuePaths = (response: StackResponse): string[] =>
  ((response.body as { details?: { issues?: { path: string }[] } }).details?.issues ?? []).map((issue) => issue.path);
