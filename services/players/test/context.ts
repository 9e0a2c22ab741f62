// A started players service for integration tests: its own database and NATS prefix (testkit),
// a Connect client, the server's pool, and a reader of the service's event stream.
import { jetstreamManager } from "@nats-io/jetstream";
import type { Client } from "@connectrpc/connect";
import { connectBus, streamNameFor, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createDb, migrateToLatest, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { PlayersService } from "@support/proto";
import { connectToAppError, createServiceClient } from "@support/rpc";
import { createTestInfra, type TestInfra } from "@support/testkit";
import {
  createServer, loadPlayersConfig, migrations, type PlayersConfig, type PlayersDatabase, type PlayersDeps, type PlayersServer,
} from "../src/index.ts";
import type { ContentClient } from "../src/sessions/game-directory.ts";

export interface PlayersTestContext {
  infra: TestInfra;
  config: PlayersConfig;
  db: Kysely<PlayersDatabase>;
  server: PlayersServer;
  client: Client<typeof PlayersService>;
  /** Where the service answers, e.g. http://127.0.0.1:41234. */
  baseUrl: string;
  /** A NATS connection of the test's own, for reading the stream. */
  nc: NatsConnection;
  /** Publishes what the outbox holds now and returns every event in the stream, in order. */
  publishedEvents(): Promise<EventEnvelope[]>;
  stop(): Promise<void>;
}

export interface StartPlayersOptions {
  /** Content as sessions see it (environment tokens, JWKS, fields); by default a client of CONTENT_URL. */
  content?: ContentClient;
  /** Tickets and media as erasures see them; by default clients of TICKETS_URL and MEDIA_URL. */
  tickets?: PlayersDeps["tickets"];
  media?: PlayersDeps["media"];
  config?: Partial<PlayersConfig>;
}

export async function startPlayers(options: StartPlayersOptions = {}): Promise<PlayersTestContext> {
  const infra = await createTestInfra();
  try {
    const config: PlayersConfig = {
      ...loadPlayersConfig({ ...infra.env, NATS_PREFIX: infra.natsPrefix, HOST: "127.0.0.1", LOG_LEVEL: "silent" }),
      PORT: 0,
      EXPIRY_SWEEP_INTERVAL_MS: 0,
      ...options.config,
    };
    const logger = createLogger({ service: "players-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
    const db = createDb<PlayersDatabase>({ url: infra.databaseUrl, schema: "players", maxConnections: 10 });
    await migrateToLatest(db, "players", migrations);
    const server = createServer({
      config, logger, db, nc: await connectBus(infra.natsUrl, "players-test"), content: options.content, tickets: options.tickets, media: options.media,
    });
    const { port } = await server.start();
    const baseUrl = `http://127.0.0.1:${port}`;
    const client = createServiceClient(PlayersService, baseUrl);
    const nc = await connectBus(infra.natsUrl, "players-test-reader");
    const stream = streamNameFor(infra.natsPrefix, "players");
    return {
      infra,
      config,
      db,
      server,
      client,
      baseUrl,
      nc,
      async publishedEvents() {
        await server.relay.flush();
        const jsm = await jetstreamManager(nc);
        const { state } = await jsm.streams.info(stream);
        const events: EventEnvelope[] = [];
        for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
          const message = await jsm.streams.getMessage(stream, { seq });
          if (message) events.push(message.json<EventEnvelope>());
        }
        return events;
      },
      stop: async () => {
        await nc.drain();
        await server.stop();
        await infra.stop();
      },
    };
  } catch (error) {
    await infra.stop();
    throw error;
  }
}

/** The domain error behind a failed call: `{code, message, issues}` as the gateway sees it. */
export async function failureOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const appError = connectToAppError(error);
    return { code: appError.code, message: appError.message, issues: appError.details?.issues };
  }
  throw new Error("expected the call to fail");
}
