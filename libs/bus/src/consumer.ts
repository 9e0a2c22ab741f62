// Durable JetStream consumers with an explicit verdict per message (ack, retry later, or give
// up) and bounded concurrency. Handlers must be idempotent: delivery is at least once.
//
// No message stops a consumer. One that cannot be read (not JSON, not an envelope, or, against
// the event contract given as `read`, a version this code does not read or data that does not
// match it), one whose handler keeps failing past `maxDeliveries`, and
// one the handler gives up on (`term`) is written to the dead-letter store first, then
// terminated, counted (support_events_dead_lettered_total) and logged; the messages behind it
// flow on, even through a consumer that holds one message at a time. A message is terminated
// only once the store has it: when the store cannot be written, the message is retried later.
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type Consumer as JsConsumer, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Msg, NatsConnection } from "@nats-io/transport-node";
import { backoffDelay, createFailureEpisode, type Logger } from "@support/logging";
import { addScrapeSource, eventsDeadLettered, jetstreamRedeliveries, jetstreamTerminated, sharedForScrape, type Registry } from "@support/metrics";
import { DEAD_LETTER_REASONS, ensureDeadLetterStream, publishDeadLetter, type DeadLetterReason } from "./dead-letters.ts";
import { readEnvelope, UNREADABLE_REASONS, type ContractRead, type EventEnvelope } from "./envelope.ts";
import { withConsumerSpan } from "./tracing.ts";
import { JETSTREAM_SETUP_TIMEOUT_MS, retryingSetup } from "./nats.ts";

export type Verdict = { ack: true } | { retryInMs: number } | { term: string };

export const ack: Verdict = { ack: true };
export const retryIn = (ms: number): Verdict => ({ retryInMs: ms });
/** Gives up on the message: it goes to the dead-letter store (reason "rejected", with this text). */
export const term = (reason: string): Verdict => ({ term: reason });

/**
 * Deliveries after which a failing handler gives up on a message (EVENT_MAX_DELIVERIES): with
 * the retry delays (2 s doubling to 60 s) the 25th delivery comes about 20 minutes after the
 * first, so a short database outage is ridden out and a message that fails for good stops
 * holding up the ones behind it after that.
 */
export const DEFAULT_MAX_DELIVERIES = 25;

/**
 * How long one pull request of a consumer waits on the server. The server sends a heartbeat
 * every half of it, and the client pulls anew after two are missed: a pull request lost with the
 * server that held it (the consumer's leader died in a JetStream cluster, a route broke) is
 * replaced after about this long, where the client's default (30 s) left the consumer idle
 * for half a minute after each failover. Costs one pull request per consumer every 5 s when idle.
 */
export const PULL_EXPIRES_MS = 5_000;

export interface ConsumerSettings<E = EventEnvelope> {
  nc: NatsConnection;
  /** The deployment's NATS_PREFIX: where the dead-letter store is (deadLetterStreamName). */
  natsPrefix: string;
  stream: string;
  durable: string;
  filterSubject: string;
  logger: Logger;
  /**
   * Reads each envelope against the event contract: `handle` gets the typed event; a type the
   * contract does not define is acknowledged without effect (a newer producer's: nothing here
   * can act on it); an unknown version or invalid data is dead-lettered. Without it `handle`
   * gets the envelope as it is.
   */
  read?: (envelope: EventEnvelope) => ContractRead<E>;
  handle: (event: E, message: JsMsg) => Promise<Verdict>;
  concurrency?: number;
  ackWaitMs?: number;
  /**
   * The server's own limit on deliveries (max_deliver), -1 (none) by default. Leave it: past it
   * NATS drops a message silently, while maxDeliveries keeps it in the dead-letter store.
   */
  maxDeliver?: number;
  /**
   * Deliveries after which a handler failure (a thrown error) sends the message to the
   * dead-letter store instead of retrying it (default DEFAULT_MAX_DELIVERIES); 0: no bound. A
   * consumer that holds messages back with `retryIn` (delayed work) counts those holds as
   * deliveries too, so it needs 0 or a bound far above its holds.
   */
  maxDeliveries?: number;
  /** First retry delay after a handler failure, doubled at each delivery up to 60 s (default 1000: 2 s, 4 s, ...). */
  retryDelayMs?: number;
  /**
   * Messages delivered and not yet acknowledged, across every replica (default concurrency x 4).
   * A message nak'ed with a delay stays pending until it is redelivered, so a consumer that
   * holds messages back for a long time (delayed work) needs a limit above their number.
   */
  maxAckPending?: number;
  /**
   * Where the consumer's series go: support_jetstream_consumer_pending / _ack_pending (its
   * consumer info, read at each scrape), the redeliveries and terminated counters, and
   * support_events_dead_lettered_total.
   */
  registry?: Registry;
}

export interface Consumer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createConsumer<E = EventEnvelope>(settings: ConsumerSettings<E>): Consumer {
  const read = settings.read ?? ((envelope: EventEnvelope): ContractRead<E> => ({ event: envelope as E }));
  const concurrency = settings.concurrency ?? 4;
  const maxAckPending = settings.maxAckPending ?? concurrency * 4;
  // How many messages one pull asks for; the client pulls again when half have come. Messages
  // not yet handled wait in this process (their AckWait running), so a pull stays small, unless
  // the server's own limit on unacknowledged messages already keeps fewer than that on their
  // way: then a large pull costs nothing and saves a pull request per message or two.
  const pullSize = maxAckPending <= concurrency * 2 ? 128 : concurrency * 2;
  let stopped = false;
  let messages: AsyncIterable<JsMsg> & { close(): Promise<void | Error> } | undefined;
  let loop: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();
  // A database outage fails every message for a while: logged once, not once per message.
  const handling = createFailureEpisode(settings.logger, `event handler of ${settings.durable}`);
  const consuming = createFailureEpisode(settings.logger, `consumer ${settings.durable}`);
  const storing = createFailureEpisode(settings.logger, `dead-letter store of ${settings.durable}`);
  const counted = { consumer: settings.durable };
  const redeliveries = settings.registry && jetstreamRedeliveries(settings.registry);
  const terminated = settings.registry && jetstreamTerminated(settings.registry);
  const deadLettered = settings.registry && eventsDeadLettered(settings.registry);
  // Every series at 0 from the start: a rate or increase() sees the first dead letter too.
  for (const reason of DEAD_LETTER_REASONS) deadLettered?.inc({ consumer: settings.durable, reason }, 0);
  const maxDeliveries = settings.maxDeliveries ?? DEFAULT_MAX_DELIVERIES;
  const retryDelayMs = settings.retryDelayMs ?? 1000;
  const js = jetstream(settings.nc);
  let removeGauges: (() => void) | undefined;

  const retryDelay = (message: JsMsg) => Math.min(60_000, retryDelayMs * 2 ** Math.min(message.info.deliveryCount, 6));
  const where = (message: JsMsg) => ({ subject: message.subject, streamSequence: message.info.streamSequence, delivery: message.info.deliveryCount });

  /** Dead-letters the message, then terminates it; "retry" when the store could not take it. */
  async function setAside(message: JsMsg, reason: DeadLetterReason, detail: string): Promise<"dead_letter" | "retry"> {
    try {
      await publishDeadLetter(js, message, { prefix: settings.natsPrefix, consumer: settings.durable, reason, detail });
    } catch (error) {
      // Terminating it now would lose it: it comes back after the delay and is tried again.
      storing.failed(error, { ...where(message), reason });
      message.nak(retryDelay(message));
      return "retry";
    }
    storing.succeeded();
    // Without a reason: nats-server 2.9 ignores a "+TERM" that carries one, and the message
    // would come back after AckWait. The reason is in the dead letter and the log.
    message.term();
    terminated?.inc(counted);
    deadLettered?.inc({ consumer: settings.durable, reason });
    settings.logger.error({ ...where(message), consumer: settings.durable, reason, detail }, "event dead-lettered");
    return "dead_letter";
  }

  // Each delivery runs in a consumer span continuing the trace of the transaction that wrote
  // the event (its `traceparent` header), so the verdict's log lines carry that trace too.
  const process = (message: JsMsg): Promise<void> =>
    withConsumerSpan(message, settings.durable, async (span) => {
      span.setAttribute("messaging.nats.delivery_count", message.info.deliveryCount);
      if (message.info.redelivered) redeliveries?.inc(counted);
      // Read outside the retry path: a message that cannot be read now never can.
      const envelope = readEnvelope(message.data);
      const event = "envelope" in envelope ? read(envelope.envelope) : envelope;
      let verdict: Verdict | { setAside: DeadLetterReason; detail: string };
      if ("reason" in event) {
        verdict = { setAside: event.reason, detail: event.detail };
      } else if ("unknownType" in event) {
        settings.logger.debug({ ...where(message), consumer: settings.durable, type: event.unknownType }, "event of a type this release does not define acknowledged");
        verdict = ack;
      } else {
        try {
          verdict = await settings.handle(event.event, message);
          handling.succeeded();
        } catch (error) {
          handling.failed(error, where(message));
          span.recordException(error instanceof Error ? error : String(error));
          verdict =
            maxDeliveries > 0 && message.info.deliveryCount >= maxDeliveries
              ? { setAside: "failed", detail: `failed ${message.info.deliveryCount} deliveries; last: ${error instanceof Error ? error.message : String(error)}` }
              : retryIn(retryDelay(message));
        }
      }
      if ("term" in verdict) verdict = { setAside: "rejected", detail: verdict.term };
      let outcome: string;
      if ("ack" in verdict) {
        message.ack();
        outcome = "ack";
      } else if ("retryInMs" in verdict) {
        message.nak(verdict.retryInMs);
        outcome = "retry";
      } else {
        outcome = await setAside(message, verdict.setAside, verdict.detail);
      }
      span.setAttribute("messaging.verdict", outcome);
    });

  let wakeUp: (() => void) | undefined;

  async function consumeLoop(first: JsConsumer): Promise<void> {
    let opened: JsConsumer | undefined = first;
    for (;;) {
      try {
        const consumer = opened ?? (await jetstream(settings.nc).consumers.get(settings.stream, settings.durable));
        opened = undefined;
        messages = await consumer.consume({ max_messages: pullSize, expires: PULL_EXPIRES_MS });
        if (stopped) await messages.close();
        // Messages fetched but not handled when the consumer stops: the iterator still yields
        // them all, then ends (leaving it early would leave them to their AckWait, up to a
        // minute). They go back to the server at once, for another replica or this service
        // once restarted.
        const unhandled: JsMsg[] = [];
        for await (const message of messages) {
          consuming.succeeded();
          if (stopped) {
            unhandled.push(message);
            continue;
          }
          const task = process(message).finally(() => inFlight.delete(task));
          inFlight.add(task);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
        }
        if (stopped) {
          // Last first: nats-server 2.9 moves its delivery position back when the last message
          // it delivered is nak'ed, and an earlier message nak'ed before it stayed pending until
          // AckWait (seen in the consumer test, one run in four).
          unhandled.sort((a, b) => b.info.streamSequence - a.info.streamSequence);
          for (const message of unhandled) message.nak();
          return;
        }
        consuming.failed(new Error("the message iterator ended"));
      } catch (error) {
        if (stopped) return;
        consuming.failed(error);
      }
      // The client keeps pulling across NATS reconnects by itself; only an iterator that ended
      // (or could not be opened) is opened again, after a backoff.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoffDelay(consuming.failures, 1000));
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stopped) return;
    }
  }

  return {
    async start() {
      // Each step is idempotent, so the whole setup is asked again while JetStream does not answer.
      const consumer = await retryingSetup(`consumer ${settings.durable}`, async () => {
        const jsm = await jetstreamManager(settings.nc, { timeout: JETSTREAM_SETUP_TIMEOUT_MS });
        // The store has as many replicas as the stream consumed: it is as precious.
        const replicas = (await jsm.streams.info(settings.stream)).config.num_replicas || 1;
        await ensureDeadLetterStream(settings.nc, settings.natsPrefix, replicas);
        await jsm.consumers.add(settings.stream, {
          durable_name: settings.durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: settings.filterSubject,
          ack_wait: (settings.ackWaitMs ?? 30_000) * 1_000_000,
          max_deliver: settings.maxDeliver ?? -1,
          max_ack_pending: maxAckPending,
        });
        return jetstream(settings.nc, { timeout: JETSTREAM_SETUP_TIMEOUT_MS }).consumers.get(settings.stream, settings.durable);
      }, { logger: settings.logger });
      removeGauges?.();
      // The gauges' scrapes keep the client's default timeout: a scrape must not wait 20 s.
      if (settings.registry) removeGauges = registerConsumerGauges(settings.registry, await jetstreamManager(settings.nc), settings);
      loop = consumeLoop(consumer);
    },
    async stop() {
      stopped = true;
      removeGauges?.();
      wakeUp?.();
      await messages?.close();
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/** The consumer's backlog from its consumer info, asked at each scrape (bounded: see addScrapeSource). */
function registerConsumerGauges(registry: Registry, jsm: JetStreamManager, settings: Pick<ConsumerSettings, "stream" | "durable" | "logger">): () => void {
  const labels = { stream: settings.stream, consumer: settings.durable };
  const info = sharedForScrape(() => jsm.consumers.info(settings.stream, settings.durable));
  const options = { timeoutMs: 1000, onError: (error: unknown) => settings.logger.debug({ err: error }, "consumer info not read for metrics") };
  const removePending = addScrapeSource(
    registry,
    { name: "support_jetstream_consumer_pending", help: "Messages of the stream the consumer has not been delivered yet (num_pending)", labelNames: ["stream", "consumer"] },
    async () => [{ labels, value: (await info()).num_pending }],
    options,
  );
  const removeAckPending = addScrapeSource(
    registry,
    { name: "support_jetstream_consumer_ack_pending", help: "Messages delivered and not yet acknowledged (num_ack_pending)", labelNames: ["stream", "consumer"] },
    async () => [{ labels, value: (await info()).num_ack_pending }],
    options,
  );
  return () => {
    removePending();
    removeAckPending();
  };
}

export interface CoreEventSettings<E> {
  /** The name the subscription is counted and logged under (e.g. gateway-content-changed). */
  consumer: string;
  logger: Logger;
  registry?: Registry | undefined;
  /** Reads each envelope against the event contract (as ConsumerSettings.read). */
  read: (envelope: EventEnvelope) => ContractRead<E>;
}

/**
 * What a plain subscription gets for a message: the typed event; a type the contract does not
 * define (`ignored`); or one it cannot handle (`skipped`). The envelope comes along whenever the
 * message had one, so that a consumer whose action is harmless to repeat, such as a cache
 * eviction, can still act broadly on it.
 */
export type CoreRead<E> = { event: E } | { ignored: string; envelope: EventEnvelope } | { skipped: DeadLetterReason; envelope?: EventEnvelope };

/**
 * For a plain core NATS subscription: a reader of each message against the event contract, which
 * counts in support_events_dead_lettered_total and logs a message it cannot handle (and why).
 * Such a message is not kept: a core message has no stream to replay it from, and it blocks
 * nothing (the subscription goes on with the next).
 */
export function coreEventReader<E>(settings: CoreEventSettings<E>): (message: Pick<Msg, "subject" | "string">) => CoreRead<E> {
  const counter = settings.registry && eventsDeadLettered(settings.registry);
  // Every series at 0 from the start: a rate or increase() sees the first skipped message too.
  for (const reason of [...UNREADABLE_REASONS, "invalid_data"]) counter?.inc({ consumer: settings.consumer, reason }, 0);
  return (message) => {
    const envelope = readEnvelope(message.string());
    const read = "envelope" in envelope ? settings.read(envelope.envelope) : envelope;
    if ("event" in read) return read;
    if ("unknownType" in read) return { ignored: read.unknownType, envelope: (envelope as { envelope: EventEnvelope }).envelope };
    counter?.inc({ consumer: settings.consumer, reason: read.reason });
    settings.logger.warn({ subject: message.subject, consumer: settings.consumer, reason: read.reason, detail: read.detail }, "event skipped");
    return "envelope" in envelope ? { skipped: read.reason, envelope: envelope.envelope } : { skipped: read.reason };
  };
}
