// Durable JetStream consumers with an explicit verdict per message (ack, retry later, or give
// up) and bounded concurrency. Handlers must be idempotent: delivery is at least once.
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type Consumer as JsConsumer, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { backoffDelay, createFailureEpisode, type Logger } from "@support/logging";
import { addScrapeSource, jetstreamRedeliveries, jetstreamTerminated, sharedForScrape, type Registry } from "@support/metrics";
import type { EventEnvelope } from "./envelope.ts";
import { withConsumerSpan } from "./tracing.ts";

export type Verdict = { ack: true } | { retryInMs: number } | { term: string };

export const ack: Verdict = { ack: true };
export const retryIn = (ms: number): Verdict => ({ retryInMs: ms });
export const term = (reason: string): Verdict => ({ term: reason });

export interface ConsumerSettings {
  nc: NatsConnection;
  stream: string;
  durable: string;
  filterSubject: string;
  logger: Logger;
  handle: (event: EventEnvelope, message: JsMsg) => Promise<Verdict>;
  concurrency?: number;
  ackWaitMs?: number;
  maxDeliver?: number;
  /**
   * Messages delivered and not yet acknowledged, across every replica (default concurrency x 4).
   * A message nak'ed with a delay stays pending until it is redelivered, so a consumer that
   * holds messages back for a long time (delayed work) needs a limit above their number.
   */
  maxAckPending?: number;
  /**
   * Where the consumer's series go: support_jetstream_consumer_pending / _ack_pending (its
   * consumer info, read at each scrape) and the redeliveries and terminated counters.
   */
  registry?: Registry;
}

export interface Consumer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createConsumer(settings: ConsumerSettings): Consumer {
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
  const counted = { consumer: settings.durable };
  const redeliveries = settings.registry && jetstreamRedeliveries(settings.registry);
  const terminated = settings.registry && jetstreamTerminated(settings.registry);
  let removeGauges: (() => void) | undefined;

  // Each delivery runs in a consumer span continuing the trace of the transaction that wrote
  // the event (its `traceparent` header), so the verdict's log lines carry that trace too.
  const process = (message: JsMsg): Promise<void> =>
    withConsumerSpan(message, settings.durable, async (span) => {
      span.setAttribute("messaging.nats.delivery_count", message.info.deliveryCount);
      if (message.info.redelivered) redeliveries?.inc(counted);
      let verdict: Verdict;
      try {
        verdict = await settings.handle(message.json<EventEnvelope>(), message);
        handling.succeeded();
      } catch (error) {
        const delay = Math.min(60_000, 1000 * 2 ** Math.min(message.info.deliveryCount, 6));
        handling.failed(error, { subject: message.subject, delivery: message.info.deliveryCount });
        span.recordException(error instanceof Error ? error : String(error));
        verdict = retryIn(delay);
      }
      span.setAttribute("messaging.verdict", "ack" in verdict ? "ack" : "retryInMs" in verdict ? "retry" : "term");
      if ("ack" in verdict) message.ack();
      else if ("retryInMs" in verdict) message.nak(verdict.retryInMs);
      else {
        settings.logger.error({ subject: message.subject, reason: verdict.term }, "event dropped");
        message.term(verdict.term);
        terminated?.inc(counted);
      }
    });

  let wakeUp: (() => void) | undefined;

  async function consumeLoop(first: JsConsumer): Promise<void> {
    let opened: JsConsumer | undefined = first;
    for (;;) {
      try {
        const consumer = opened ?? (await jetstream(settings.nc).consumers.get(settings.stream, settings.durable));
        opened = undefined;
        messages = await consumer.consume({ max_messages: pullSize });
        if (stopped) await messages.close();
        for await (const message of messages) {
          consuming.succeeded();
          if (stopped) {
            // Back to the server now rather than after AckWait: another replica takes it.
            message.nak();
            break;
          }
          const task = process(message).finally(() => inFlight.delete(task));
          inFlight.add(task);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
        }
        if (stopped) return;
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
      const jsm = await jetstreamManager(settings.nc);
      await jsm.consumers.add(settings.stream, {
        durable_name: settings.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: settings.filterSubject,
        ack_wait: (settings.ackWaitMs ?? 30_000) * 1_000_000,
        max_deliver: settings.maxDeliver ?? -1,
        max_ack_pending: maxAckPending,
      });
      const consumer = await jetstream(settings.nc).consumers.get(settings.stream, settings.durable);
      removeGauges?.();
      if (settings.registry) removeGauges = registerConsumerGauges(settings.registry, jsm, settings);
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
function registerConsumerGauges(registry: Registry, jsm: JetStreamManager, settings: ConsumerSettings): () => void {
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
