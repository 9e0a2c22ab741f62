// NATS connection and JetStream stream set-up. Services create their streams at start-up,
// idempotently, so a deployment needs no manual NATS step.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager, RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import type { Logger } from "@support/logging";
import { streamNameFor } from "./envelope.ts";

export type { NatsConnection };

export async function connectBus(url: string, name: string, logger?: Logger): Promise<NatsConnection> {
  // noAsyncTraces: otherwise every request (each JetStream publish of the outbox relay) builds
  // two Error objects up front, stack traces included, only to tell where a timeout came from.
  const nc = await connect({ servers: url.split(","), name, maxReconnectAttempts: -1, reconnectTimeWait: 1000, noAsyncTraces: true });
  if (logger) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect" || status.type === "reconnect" || status.type === "error") {
          logger.warn({ nats: status.type }, "nats connection status changed");
        }
      }
    })();
  }
  return nc;
}

export interface StreamSettings {
  name: string;
  subjects: string[];
  /** How long events are kept for late consumers. */
  maxAgeMs?: number;
  /** Window within which a re-published event (same Nats-Msg-Id) is dropped. */
  duplicateWindowMs?: number;
  /** Copies of the stream in a JetStream cluster (NATS_STREAM_REPLICAS); 1 on a single server. */
  replicas?: number;
  /** Most bytes the stream keeps (the oldest messages go first); unbounded by default. */
  maxBytes?: number;
}

/** What ensureStream did: created the stream, changed it in place, or found it as configured. */
export type StreamOutcome = "created" | "updated" | "unchanged";

/**
 * Creates the stream, or brings an existing one to these settings in place (subjects, limits,
 * replicas): a changed setting takes effect at the next start of any replica, with no manual
 * NATS step. Retention and storage cannot change in place; NATS refuses, and the error says so.
 */
/**
 * How long a JetStream API request of a service's setup (a stream's or a consumer's info, add,
 * update) may take. The client's default, 5 s, is shorter than a JetStream cluster may take to
 * place a replicated stream or consumer while it elects leaders on a busy machine: a service
 * that gave up then exited at start instead of waiting.
 */
export const JETSTREAM_SETUP_TIMEOUT_MS = 20_000;

/**
 * How long a service keeps trying its JetStream setup when requests go unanswered (a cluster
 * electing leaders, a node restarting) before it gives up and exits: longer than one request's
 * timeout, since a request lost in a leader change is answered at once when asked again.
 */
export const JETSTREAM_SETUP_DEADLINE_MS = 120_000;

/** An error of JetStream's setup that asking again may not meet: no answer in time, or JetStream busy. */
export function isTransientSetupError(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  const text = String((error as { message?: string })?.message ?? error);
  return name === "TimeoutError" || /timeout|no responders|temporarily unavailable/i.test(text);
}

/**
 * Runs a JetStream setup step (idempotent: an info, an add of the same settings) again after a
 * growing pause while it fails transiently, until JETSTREAM_SETUP_DEADLINE_MS; any other error,
 * or one past the deadline, is thrown.
 */
export async function retryingSetup<T>(what: string, step: () => Promise<T>, options: { logger?: Logger | undefined; deadlineMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.deadlineMs ?? JETSTREAM_SETUP_DEADLINE_MS);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      const pauseMs = Math.min(5_000, 500 * 2 ** (attempt - 1));
      if (!isTransientSetupError(error) || Date.now() + pauseMs >= deadline) throw error;
      options.logger?.warn({ err: error, attempt }, `${what}: JetStream did not answer in time; asking again`);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

export async function ensureStream(nc: NatsConnection, settings: StreamSettings, logger?: Logger): Promise<StreamOutcome> {
  return retryingSetup(`stream ${settings.name}`, () => ensureStreamOnce(nc, settings), { logger });
}

async function ensureStreamOnce(nc: NatsConnection, settings: StreamSettings): Promise<StreamOutcome> {
  const jsm = await jetstreamManager(nc, { timeout: JETSTREAM_SETUP_TIMEOUT_MS });
  const replicas = settings.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) {
    throw new Error(`stream ${settings.name}: replicas must be an integer from 1 to 5 (NATS_STREAM_REPLICAS), got ${replicas}`);
  }
  const config = {
    name: settings.name,
    subjects: settings.subjects,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: (settings.maxAgeMs ?? 7 * 24 * 3600_000) * 1_000_000,
    duplicate_window: (settings.duplicateWindowMs ?? 10 * 60_000) * 1_000_000,
    num_replicas: replicas,
    max_bytes: settings.maxBytes ?? -1,
  };
  let current: StreamConfig | undefined;
  try {
    current = (await jsm.streams.info(settings.name)).config;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    if (!current) {
      try {
        await jsm.streams.add(config);
        return "created";
      } catch (addError) {
        // Another replica created it first: fine.
        if (!String(addError).includes("already in use")) throw addError;
        current = (await jsm.streams.info(settings.name)).config;
      }
    }
    // Every replica of every service runs this at start: update only what differs, so a rollout
    // does not send one stream update per pod.
    if (sameSettings(current, config)) return "unchanged";
    await jsm.streams.update(settings.name, config);
    return "updated";
  } catch (error) {
    throw explainStreamError(settings.name, replicas, error);
  }
}

function sameSettings(current: StreamConfig, wanted: Pick<StreamConfig, "subjects" | "max_age" | "duplicate_window" | "num_replicas" | "max_bytes">): boolean {
  const subjects = (list: string[] | undefined) => [...(list ?? [])].sort().join("\n");
  return (
    subjects(current.subjects) === subjects(wanted.subjects) &&
    current.max_age === wanted.max_age &&
    current.duplicate_window === wanted.duplicate_window &&
    (current.num_replicas || 1) === wanted.num_replicas &&
    (current.max_bytes ?? -1) === wanted.max_bytes
  );
}

/** NATS' answer to replicas > 1 on a server without a JetStream cluster is terse: name the setting. */
function explainStreamError(stream: string, replicas: number, error: unknown): unknown {
  const text = String((error as { message?: string })?.message ?? error);
  if (replicas > 1 && /replicas|clustered|insufficient resources|no suitable peers/i.test(text)) {
    return new Error(
      `stream ${stream}: ${replicas} replicas need a JetStream cluster of at least ${replicas} servers ` +
        `(NATS_STREAM_REPLICAS=${replicas}); this NATS refused: ${text}. Use NATS_STREAM_REPLICAS=1 on a single server.`,
      { cause: error },
    );
  }
  return error;
}

function isNotFound(error: unknown): boolean {
  const text = String((error as { message?: string })?.message ?? error);
  return text.includes("not found");
}

/** True when JetStream answers (readiness). */
export function isBusConnected(nc: NatsConnection): boolean {
  return !nc.isClosed() && !nc.isDraining();
}

/**
 * The stream of another service, for a consumer of its events: created as that service creates
 * it when the consumer's service starts first (its owner's own start leaves it as it is), so that
 * the durable consumer can be added. Its name.
 */
export async function streamOfService(nc: NatsConnection, settings: { natsPrefix: string; service: string; replicas: number }): Promise<string> {
  const name = streamNameFor(settings.natsPrefix, settings.service);
  const exists = await retryingSetup(`stream ${name}`, async () => {
    // Inside the retries: getting the manager is itself a JetStream request.
    const jsm = await jetstreamManager(nc, { timeout: JETSTREAM_SETUP_TIMEOUT_MS });
    try {
      await jsm.streams.info(name);
      return true;
    } catch (error) {
      if (!String((error as Error).message ?? error).includes("not found")) throw error;
      return false;
    }
  });
  if (!exists) await ensureStream(nc, { name, subjects: [`${settings.natsPrefix}${settings.service}.>`], replicas: settings.replicas });
  return name;
}
