// A started tickets service for integration tests, with its real dependencies: the content,
// players and media services on free ports (media on the testkit's S3), one fresh database and NATS prefix (testkit), tenants
// provisioned with the admin tool (tools/admin, over content's and players' admin RPCs), a Connect client of each
// service, and a recorder of the domain events published on NATS.
import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { runAdmin } from "@support/admin";
import { connectBus, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createServer as createContentServer, loadContentConfig, migrations as contentMigrations } from "@support/content";
import { createDb, migrateToLatest, type Kysely, type Migration } from "@support/db";
import { createLogger } from "@support/logging";
import { createServer as createMediaServer, loadMediaConfig, migrations as mediaMigrations } from "@support/media";
import { createServer as createPlayersServer, loadPlayersConfig, migrations as playersMigrations } from "@support/players";
import { MediaService, PlayerSideService, PlayersService, TicketsService } from "@support/proto";
import { connectToAppError, createServiceClient } from "@support/rpc";
import type { ServiceHost } from "@support/runtime";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createServer, loadTicketsConfig, migrations, type TicketsConfig, type TicketsDatabase, type TicketsServer } from "../src/index.ts";

export interface TenantResult {
  companyId: string;
  apiKeys: Record<string, string>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }> }>;
  users: Record<string, string>;
}

export interface TicketsTestContext {
  infra: TestInfra;
  config: TicketsConfig;
  server: TicketsServer;
  tickets: Client<typeof TicketsService>;
  playerSide: Client<typeof PlayerSideService>;
  players: Client<typeof PlayersService>;
  media: Client<typeof MediaService>;
  /** A separate pool on the tickets schema, for assertions and for seeding large tables. */
  db: Kysely<TicketsDatabase>;
  /** Domain events published on NATS under this run's prefix, in arrival order. */
  published: EventEnvelope[];
  /** Runs the admin tool against the run's content, players and tickets services. */
  admin<T = Record<string, unknown>>(args: string[], stdin?: string): Promise<T>;
  applyTenant(file: unknown): Promise<TenantResult>;
  /** Starts one more tickets replica on the same database (several replicas). */
  startReplica(overrides?: Partial<TicketsConfig>): Promise<TicketsServer>;
  /** Moves the clock of SLA clocks and sweeps on every replica of this context; null: real time again. */
  setNow(at: Date | null): void;
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

export async function startTickets(overrides: Partial<TicketsConfig> = {}): Promise<TicketsTestContext> {
  const infra = await createTestInfra();
  const logger = createLogger({ service: "tickets-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const adminToken = randomBytes(24).toString("base64url");
  const env = { ...infra.env, NATS_PREFIX: infra.natsPrefix, HOST: "127.0.0.1", LOG_LEVEL: "silent", ADMIN_TOKEN: adminToken };
  const hosts: ServiceHost[] = [];
  const connections: NatsConnection[] = [];
  const pools: Kysely<unknown>[] = [];
  const stop = async () => {
    for (const host of [...hosts].reverse()) await host.stop().catch(() => undefined);
    for (const nc of connections) if (!nc.isClosed()) await nc.drain().catch(() => undefined);
    for (const pool of pools) await pool.destroy().catch(() => undefined);
    await infra.stop();
  };

  try {
    await migrate(infra.databaseUrl, "content", contentMigrations);
    await migrate(infra.databaseUrl, "players", playersMigrations);
    await migrate(infra.databaseUrl, "media", mediaMigrations);
    await migrate(infra.databaseUrl, "tickets", migrations);

    const contentConfig = { ...loadContentConfig(env), PORT: 0 };
    const content = createContentServer({
      config: contentConfig, logger, db: createDb({ url: infra.databaseUrl, schema: "content", maxConnections: 4 }), nc: await connectBus(infra.natsUrl, "content"),
    });
    hosts.push(content);
    const contentPort = (await content.start()).port;

    const playersConfig = { ...loadPlayersConfig(env), PORT: 0 };
    const playersHost = createPlayersServer({
      config: playersConfig, logger, db: createDb({ url: infra.databaseUrl, schema: "players", maxConnections: 6 }), nc: await connectBus(infra.natsUrl, "players"),
    });
    hosts.push(playersHost);
    const playersPort = (await playersHost.start()).port;

    const mediaConfig = { ...loadMediaConfig({ ...env, CONTENT_URL: `http://127.0.0.1:${contentPort}`, ATTACHMENT_SWEEP_INTERVAL_MS: "0" }), PORT: 0 };
    const mediaHost = createMediaServer({
      config: mediaConfig, logger, db: createDb({ url: infra.databaseUrl, schema: "media", maxConnections: 4 }), nc: await connectBus(infra.natsUrl, "media"),
    });
    hosts.push(mediaHost);
    const mediaPort = (await mediaHost.start()).port;

    const config: TicketsConfig = {
      ...loadTicketsConfig({
        ...env,
        CONTENT_URL: `http://127.0.0.1:${contentPort}`,
        PLAYERS_URL: `http://127.0.0.1:${playersPort}`,
        MEDIA_URL: `http://127.0.0.1:${mediaPort}`,
        AUTO_CLOSE_INTERVAL_MS: "0",
        CURSOR_SECRET: "tickets-test-cursor-secret",
      }),
      PORT: 0,
      ...overrides,
    };
    let movedNow: Date | null = null;
    const now = () => movedNow ?? new Date();
    const startReplica = async (replicaOverrides: Partial<TicketsConfig> = {}) => {
      const server = createServer({
        config: { ...config, ...replicaOverrides }, logger, db: createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 10 }), nc: await connectBus(infra.natsUrl, "tickets"), now,
      });
      hosts.push(server);
      await server.start();
      return server;
    };
    const server = createServer({
      config, logger, db: createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 10 }), nc: await connectBus(infra.natsUrl, "tickets"), now,
    });
    hosts.push(server);
    const { port } = await server.start();

    const observer = await connectBus(infra.natsUrl, "tickets-test-observer");
    connections.push(observer);
    const published: EventEnvelope[] = [];
    const subscription = observer.subscribe(`${infra.natsPrefix}tickets.>`);
    void (async () => {
      for await (const message of subscription) published.push(message.json<EventEnvelope>());
    })();

    const db = createDb<TicketsDatabase>({ url: infra.databaseUrl, schema: "tickets", maxConnections: 4 });
    pools.push(db as Kysely<unknown>);

    const admin = <T>(args: string[], stdin?: string): Promise<T> =>
      runAdmin<T>(
        args,
        { CONTENT_URL: `http://127.0.0.1:${contentPort}`, PLAYERS_URL: `http://127.0.0.1:${playersPort}`, TICKETS_URL: `http://127.0.0.1:${port}`, ADMIN_TOKEN: adminToken, LOG_LEVEL: "warn" },
        stdin,
      );

    return {
      infra,
      config,
      server,
      tickets: createServiceClient(TicketsService, `http://127.0.0.1:${port}`),
      playerSide: createServiceClient(PlayerSideService, `http://127.0.0.1:${port}`),
      players: createServiceClient(PlayersService, `http://127.0.0.1:${playersPort}`),
      media: createServiceClient(MediaService, `http://127.0.0.1:${mediaPort}`),
      db,
      published,
      admin,
      applyTenant: (file) => admin<TenantResult>(["apply", "-"], JSON.stringify(file)),
      startReplica,
      setNow: (at) => void (movedNow = at),
      stop,
    };
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
    return { code: appError.code, message: appError.message, details: appError.details };
  }
  throw new Error("expected the call to fail");
}

/** Polls `check` until it returns true (events travel through the outbox and NATS). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let tenantCounter = 0;

/** A tenant file with two games, a user with access to the first only, tags and fields. */
export function tenantFile(options: { autoCloseWaitingAfterHours?: number } = {}) {
  tenantCounter += 1;
  const n = `${process.pid}-${tenantCounter}`;
  return {
    company: { name: `Studio ${n}`, primaryLanguage: "en", autoCloseWaitingAfterHours: options.autoCloseWaitingAfterHours ?? 168 },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${n}`, languages: ["en", "fr"], environments: [{ ref: "galaxy-prod", name: "production" }, { ref: "galaxy-staging", name: "staging" }] },
      { ref: "farm", name: "Pixel Farm", slug: `farm-${n}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [
      { ref: "alice", name: "Alice", email: `alice-${n}@example.com`, games: ["galaxy"] },
      { ref: "bob", name: "Bob", email: `bob-${n}@example.com`, games: ["farm"] },
    ],
    tags: [
      { name: "bug", game: null },
      { name: "vip", game: null },
      { name: "crash", game: "galaxy" },
      { name: "harvest", game: "farm" },
    ],
    fields: [
      { key: "level", name: "Level", type: "number", game: null },
      { key: "note", name: "Note", type: "text", game: null },
      { key: "spender", name: "Spender", type: "boolean", game: null },
      { key: "bought", name: "Bought", type: "date", game: null },
      { key: "ship", name: "Ship", type: "dropdown", game: "galaxy", options: ["fighter", "explorer", "freighter"] },
      { key: "crop", name: "Crop", type: "text", game: "farm" },
    ],
  };
}
