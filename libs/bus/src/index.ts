export { createEnvelope, streamNameFor, subjectFor, type EventEnvelope, type NewEvent } from "./envelope.ts";
export { connectBus, ensureStream, isBusConnected, type NatsConnection, type StreamOutcome, type StreamSettings } from "./nats.ts";
export {
  addOutboxTraceparent, createOutboxRelay, createOutboxTable, dropOutboxTraceparent, registerOutboxMetrics, writeEvents, type OutboxRelay, type OutboxRelaySettings, type OutboxTable,
} from "./outbox.ts";
export { ack, createConsumer, retryIn, term, type Consumer, type ConsumerSettings, type Verdict } from "./consumer.ts";
export { activeTraceparent, withConsumerSpan } from "./tracing.ts";
