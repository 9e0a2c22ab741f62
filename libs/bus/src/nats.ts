// NATS connection and JetStream stream set-up. Services create their streams at start-up,
// idempotently, so a deployment needs no manual NATS step.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { Logger } from "@support/logging";

export type { NatsConnection };

export async function connectBus(url: string, name: string, logger?: Logger): Promise<NatsConnection> {
  const nc = await connect({ servers: url.split(","), name, maxReconnectAttempts: -1, reconnectTimeWait: 1000 });
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
}

export async function ensureStream(nc: NatsConnection, settings: StreamSettings): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: settings.name,
    subjects: settings.subjects,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: (settings.maxAgeMs ?? 7 * 24 * 3600_000) * 1_000_000,
    duplicate_window: (settings.duplicateWindowMs ?? 10 * 60_000) * 1_000_000,
  };
  try {
    await jsm.streams.info(settings.name);
    await jsm.streams.update(settings.name, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await jsm.streams.add(config);
    } catch (addError) {
      // Another replica created it first: fine.
      if (!String(addError).includes("already in use")) throw addError;
    }
  }
}

function isNotFound(error: unknown): boolean {
  const text = String((error as { message?: string })?.message ?? error);
  return text.includes("not found");
}

/** True when JetStream answers (readiness). */
export function isBusConnected(nc: NatsConnection): boolean {
  return !nc.isClosed() && !nc.isDraining();
}
