// A started media service for integration tests: its own database and NATS prefix, the
// testkit's S3 (an @20minutes/s3rver that checks SigV4 signatures, or S3_ENDPOINT), a Connect
// client, the server's pool, a reader of the service's event stream, and an in-memory game
// directory standing in for content (GetGame itself is covered by src/clients.test.ts and the
// gateway's integration tests).
import { randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import type { Client } from "@connectrpc/connect";
import { HeadObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { connectBus, streamNameFor, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createDb, migrateToLatest, type Kysely } from "@support/db";
import { notFound } from "@support/errors";
import { createLogger } from "@support/logging";
import { MediaService } from "@support/proto";
import { connectToAppError, createServiceClient } from "@support/rpc";
import { createS3Client, createTestInfra, type TestInfra } from "@support/testkit";
import { createServer, loadMediaConfig, migrations, type MediaConfig, type MediaDatabase, type MediaServer } from "../src/index.ts";

export interface MediaTestContext {
  infra: TestInfra;
  config: MediaConfig;
  db: Kysely<MediaDatabase>;
  server: MediaServer;
  client: Client<typeof MediaService>;
  /** Games the stand-in for content knows, by company. */
  games: Map<string, Set<string>>;
  /** A new company with one game. */
  newTenant(): { companyId: string; gameId: string };
  /** Publishes what the outbox holds now and returns every event in the stream, in order. */
  publishedEvents(): Promise<EventEnvelope[]>;
  /** Size of the stored object under a key, or undefined (straight from the bucket). */
  storedSize(key: string): Promise<number | undefined>;
  /** Every key under a prefix (straight from the bucket). */
  storedKeys(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startMedia(env: Record<string, string> = {}): Promise<MediaTestContext> {
  const infra = await createTestInfra();
  try {
    const config: MediaConfig = {
      ...loadMediaConfig({ ...infra.env, NATS_PREFIX: infra.natsPrefix, HOST: "127.0.0.1", ATTACHMENT_SWEEP_INTERVAL_MS: "0", ...env }),
      PORT: 0,
    };
    const logger = createLogger({ service: "media-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
    const db = createDb<MediaDatabase>({ url: infra.databaseUrl, schema: "media", maxConnections: 10 });
    await migrateToLatest(db, "media", migrations);
    const games = new Map<string, Set<string>>();
    const server = createServer({
      config,
      logger,
      db,
      nc: await connectBus(infra.natsUrl, "media-test"),
      games: {
        async requireGame(companyId, gameId) {
          if (!games.get(companyId)?.has(gameId)) throw notFound("game not found");
        },
      },
    });
    const { port } = await server.start();
    const client = createServiceClient(MediaService, `http://127.0.0.1:${port}`);
    const nc: NatsConnection = await connectBus(infra.natsUrl, "media-test-reader");
    const stream = streamNameFor(infra.natsPrefix, "media");
    const s3 = createS3Client(infra.s3);
    return {
      infra,
      config,
      db,
      server,
      client,
      games,
      newTenant() {
        const companyId = randomUUID();
        const gameId = randomUUID();
        games.set(companyId, new Set([gameId]));
        return { companyId, gameId };
      },
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
      async storedSize(key) {
        try {
          return (await s3.send(new HeadObjectCommand({ Bucket: infra.s3.bucket, Key: key }))).ContentLength;
        } catch {
          return undefined;
        }
      },
      async storedKeys(prefix) {
        const listed = await s3.send(new ListObjectsV2Command({ Bucket: infra.s3.bucket, Prefix: prefix }));
        return (listed.Contents ?? []).map((o) => o.Key!);
      },
      stop: async () => {
        s3.destroy();
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

/** PUTs `body` to the instruction exactly as a client must: its method, URL and headers. */
export async function upload(
  instruction: { uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> },
  body: Uint8Array,
  headers: Record<string, string> = instruction.uploadHeaders,
): Promise<{ status: number; text: string }> {
  const response = await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers, body });
  return { status: response.status, text: await response.text() };
}
