export { createEnvelope, streamNameFor, subjectFor, type EventEnvelope, type NewEvent } from "./envelope.ts";
export { connectBus, ensureStream, isBusConnected, type NatsConnection, type StreamSettings } from "./nats.ts";
export { createOutboxRelay, createOutboxTable, registerOutboxMetrics, writeEvents, type OutboxRelay, type OutboxRelaySettings, type OutboxTable } from "./outbox.ts";
export { ack, createConsumer, retryIn, term, type Consumer, type ConsumerSettings, type Verdict } from "./consumer.ts";
