// A started webhooks service for integration tests, with the real services that produce its
// events: content, players, media and tickets on free ports, one fresh database and NATS
// prefix (testkit), tenants provisioned with the admin tool, and Connect clients. Receivers
// are plain node:http servers on testkit free ports that record every request.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { Client } from "@connectrpc/connect";
import { runAdmin } from "@support/admin";
import { connectBus, type NatsConnection } from "@support/bus";
import { createServer as createContentServer, loadContentConfig, migrations as contentMigrations } from "@support/content";
import { createDb, migrateToLatest, type Kysely, type Migration } from "@support/db";
import { createLogger } from "@support/logging";
import { createServer as createMediaServer, loadMediaConfig, migrations as mediaMigrations } from "@support/media";
import { createServer as createPlayersServer, loadPlayersConfig, migrations as playersMigrations } from "@support/players";
import { PlayersService, TicketsService, WebhooksAdminService, WebhooksService } from "@support/proto";
import { connectToAppError, createServiceClient } from "@support/rpc";
import type { ServiceHost } from "@support/runtime";
import { createTestInfra, freePort, type TestInfra } from "@support/testkit";
import { createServer as createTicketsServer, loadTicketsConfig, migrations as ticketsMigrations, type TicketsServer } from "@support/tickets";
import { createServer, loadWebhooksConfig, migrations, type WebhooksConfig, type WebhooksDatabase, type WebhooksServer } from "../src/index.ts";

export interface TenantResult {
  companyId: string;
  apiKeys: Record<string, string>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }> }>;
  users: Record<string, string>;
}

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Answers each request; by default 200 "ok". Returning undefined leaves the request unanswered. */
  respond: (request: ReceivedRequest, index: number) => Answer | undefined | Promise<Answer | undefined>;
  close(): Promise<void>;
}

export interface WebhooksTestContext {
  infra: TestInfra;
  config: WebhooksConfig;
  server: WebhooksServer;
  webhooks: Client<typeof WebhooksService>;
  admin: Client<typeof WebhooksAdminService>;
  adminToken: string;
  tickets: Client<typeof TicketsService>;
  /** The in-process tickets service (its SLA sweep, for one). */
  ticketsServer: TicketsServer;
  players: Client<typeof PlayersService>;
  /** A separate pool on the webhooks schema, for assertions. */
  db: Kysely<WebhooksDatabase>;
  applyTenant(): Promise<TenantResult>;
  receiver(respond?: Receiver["respond"]): Promise<Receiver>;
  /** Stops the webhooks service (graceful) and starts a new one on the same database and streams. */
  restart(overrides?: Partial<WebhooksConfig>): Promise<void>;
  /** Stops the in-process service; runs `src/main.ts` as a child process instead, on the same port and settings. */
  startChild(): Promise<ChildProcess>;
  /** Starts the in-process service again (after startChild's process is gone). */
  startInProcess(): Promise<void>;
  /** One more replica on the same database and streams (another port); stopped with the context. */
  startReplica(): Promise<WebhooksServer>;
  stop(): Promise<void>;
}

async function migrate(url: string, schema: string, list: Record<string, Migration>): Promise<void> {
  const db = createDb({ url, schema, maxConnections: 1 });
  try {
    await migrateToLatest(db, schema, list);
  } finally {
    await db.destroy();
  }
}

let tenantCounter = 0;

export function tenantFile() {
  tenantCounter += 1;
  const n = `${process.pid}-${tenantCounter}-${randomBytes(3).toString("hex")}`;
  return {
    company: { name: `Studio ${n}`, primaryLanguage: "en", autoCloseWaitingAfterHours: 168, allowImmediateDeletion: true },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${n}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Pixel Farm", slug: `farm-${n}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [{ ref: "alice", name: "Alice", email: `alice-${n}@example.com`, games: ["galaxy", "farm"] }],
    tags: [{ name: "bug", game: null }],
    fields: [{ key: "level", name: "Level", type: "number", game: null }],
  };
}

export async function startWebhooks(overrides: Record<string, string> = {}): Promise<WebhooksTestContext> {
  const infra = await createTestInfra();
  const logger = createLogger({ service: "webhooks-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const adminToken = randomBytes(24).toString("base64url");
  const env = { ...infra.env, NATS_PREFIX: infra.natsPrefix, HOST: "127.0.0.1", LOG_LEVEL: "silent", ADMIN_TOKEN: adminToken };
  const hosts: ServiceHost[] = [];
  const connections: NatsConnection[] = [];
  const pools: Kysely<unknown>[] = [];
  const servers: Server[] = [];
  let current: WebhooksServer | undefined;
  const killChildren: (() => void)[] = [];
  const stop = async () => {
    for (const kill of killChildren) kill();
    await current?.stop().catch(() => undefined);
    for (const host of [...hosts].reverse()) await host.stop().catch(() => undefined);
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    for (const nc of connections) if (!nc.isClosed()) await nc.drain().catch(() => undefined);
    for (const pool of pools) await pool.destroy().catch(() => undefined);
    await infra.stop();
  };

  try {
    await migrate(infra.databaseUrl, "content", contentMigrations);
    await migrate(infra.databaseUrl, "players", playersMigrations);
    await migrate(infra.databaseUrl, "media", mediaMigrations);
    await migrate(infra.databaseUrl, "tickets", ticketsMigrations);
    await migrate(infra.databaseUrl, "webhooks", migrations);

    const content = createContentServer({
      config: { ...loadContentConfig(env), PORT: 0 }, logger, db: createDb({ url: infra.databaseUrl, schema: "content", maxConnections: 4 }), nc: await connectBus(infra.natsUrl, "content"),
    });
    hosts.push(content);
    const contentUrl = `http://127.0.0.1:${(await content.start()).port}`;

    const playersPort = await freePort();
    const ticketsPort = await freePort();
    const mediaPort = await freePort();
    const urls = { CONTENT_URL: contentUrl, PLAYERS_URL: `http://127.0.0.1:${playersPort}`, TICKETS_URL: `http://127.0.0.1:${ticketsPort}`, MEDIA_URL: `http://127.0.0.1:${mediaPort}` };

    const playersHost = createPlayersServer({
      config: { ...loadPlayersConfig({ ...env, ...urls, PLAYER_DELETION_DELAY_SECONDS: "1" }), PORT: playersPort },
      logger,
      db: createDb({ url: infra.databaseUrl, schema: "players", maxConnections: 6 }),
      nc: await connectBus(infra.natsUrl, "players"),
    });
    hosts.push(playersHost);
    await playersHost.start();

    const mediaHost = createMediaServer({
      config: { ...loadMediaConfig({ ...env, ...urls, ATTACHMENT_SWEEP_INTERVAL_MS: "0" }), PORT: mediaPort },
      logger,
      db: createDb({ url: infra.databaseUrl, schema: "media", maxConnections: 4 }),
      nc: await connectBus(infra.natsUrl, "media"),
    });
    hosts.push(mediaHost);
    await mediaHost.start();

    const ticketsHost = createTicketsServer({
      config: { ...loadTicketsConfig({ ...env, ...urls, AUTO_CLOSE_INTERVAL_MS: "0", CURSOR_SECRET: "webhooks-test-cursor-secret" }), PORT: ticketsPort },
      logger,
      db: createDb({ url: infra.databaseUrl, schema: "tickets", maxConnections: 10 }),
      nc: await connectBus(infra.natsUrl, "tickets"),
    });
    hosts.push(ticketsHost);
    await ticketsHost.start();

    const webhooksPort = await freePort();
    const webhooksEnv: Record<string, string> = {
      ...env,
      CONTENT_URL: contentUrl,
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1",
      WEBHOOK_POLL_INTERVAL_MS: "100",
      WEBHOOK_TIMEOUT_MS: "3000",
      ...overrides,
    };
    const config: WebhooksConfig = { ...loadWebhooksConfig(webhooksEnv), PORT: webhooksPort };
    const startService = async (configOverrides: Partial<WebhooksConfig> = {}) => {
      const server = createServer({
        config: { ...config, ...configOverrides },
        logger,
        db: createDb<WebhooksDatabase>({ url: infra.databaseUrl, schema: "webhooks", maxConnections: 8 }),
        nc: await connectBus(infra.natsUrl, "webhooks"),
      });
      await server.start();
      current = server;
      return server;
    };
    const server = await startService();
    const webhooksUrl = `http://127.0.0.1:${webhooksPort}`;

    const db = createDb<WebhooksDatabase>({ url: infra.databaseUrl, schema: "webhooks", maxConnections: 4 });
    pools.push(db as Kysely<unknown>);

    const ctx: WebhooksTestContext = {
      infra,
      config,
      server,
      webhooks: createServiceClient(WebhooksService, webhooksUrl),
      admin: createServiceClient(WebhooksAdminService, webhooksUrl),
      adminToken,
      tickets: createServiceClient(TicketsService, urls.TICKETS_URL),
      ticketsServer: ticketsHost,
      players: createServiceClient(PlayersService, urls.PLAYERS_URL),
      db,
      applyTenant: () =>
        runAdmin<TenantResult>(["apply", "-"], { CONTENT_URL: contentUrl, PLAYERS_URL: urls.PLAYERS_URL, ADMIN_TOKEN: adminToken, LOG_LEVEL: "warn" }, JSON.stringify(tenantFile())),
      async receiver(respond = () => ({ status: 200, body: "ok" })) {
        const port = await freePort();
        const receiver: Receiver = {
          url: `http://127.0.0.1:${port}/hook`,
          requests: [],
          respond,
          close: async () => {
            http.closeAllConnections();
            await new Promise((resolve) => http.close(resolve));
          },
        };
        const http = createHttpServer((req, res) => {
          const chunks: Buffer[] = [];
          req.on("data", (chunk: Buffer) => chunks.push(chunk));
          req.on("end", () => {
            const request = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
            receiver.requests.push(request);
            void Promise.resolve(receiver.respond(request, receiver.requests.length - 1)).then((answer) => {
              if (!answer || res.destroyed) return;
              res.writeHead(answer.status, answer.headers ?? {});
              res.end(answer.body ?? "");
            });
          });
        });
        servers.push(http);
        await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
        return receiver;
      },
      async startChild() {
        await current?.stop();
        current = undefined;
        const child = spawn(process.execPath, [path.join(import.meta.dirname, "../src/main.ts")], {
          env: { ...process.env, ...webhooksEnv, PORT: String(webhooksPort), LOG_LEVEL: "error" },
          stdio: ["ignore", "ignore", "inherit"],
        });
        killChildren.push(() => child.kill("SIGKILL"));
        const health = `${webhooksUrl}/readyz`;
        await eventually(async () => {
          if (child.exitCode !== null) throw new Error(`the webhooks process exited with ${child.exitCode}`);
          return (await fetch(health).catch(() => undefined))?.ok === true;
        }, 60_000);
        return child;
      },
      async startReplica() {
        const replica = createServer({
          config: { ...config, PORT: await freePort() },
          logger,
          db: createDb<WebhooksDatabase>({ url: infra.databaseUrl, schema: "webhooks", maxConnections: 8 }),
          nc: await connectBus(infra.natsUrl, "webhooks-replica"),
        });
        hosts.push(replica);
        await replica.start();
        return replica;
      },
      async startInProcess() {
        ctx.server = await startService();
      },
      async restart(configOverrides = {}) {
        await current?.stop();
        current = undefined;
        ctx.server = await startService(configOverrides);
      },
      stop,
    };
    return ctx;
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The domain error behind a failed call, as the gateway sees it. */
export async function failureOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const appError = connectToAppError(error);
    return { code: appError.code, message: appError.message, issues: appError.details?.issues };
  }
  throw new Error("expected the call to fail");
}

/** Polls `check` until it returns true (events travel through outboxes, NATS and HTTP). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The parsed body of each received request. */
export function bodies(receiver: Receiver): { type: string; timestamp: string; data: Record<string, unknown> }[] {
  return receiver.requests.map((request) => JSON.parse(request.body) as { type: string; timestamp: string; data: Record<string, unknown> });
}
