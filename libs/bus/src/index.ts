export {
  checkEnvelope, createEnvelope, readEnvelope, streamNameFor, subjectFor, UNREADABLE_REASONS,
  type ContractRead, type EventEnvelope, type NewEvent, type ReadEnvelope, type UnreadableReason,
} from "./envelope.ts";
export { addOutboxTraceparentMigration, createOutboxMigration } from "./migrations.ts";
export { connectBus, ensureStream, isBusConnected, streamOfService, type NatsConnection, type StreamOutcome, type StreamSettings } from "./nats.ts";
export {
  addOutboxTraceparent, createOutboxRelay, createOutboxTable, dropOutboxTraceparent, registerOutboxMetrics, writeEvents, type OutboxRelay, type OutboxRelaySettings, type OutboxTable,
} from "./outbox.ts";
export {
  ack, coreEventReader, createConsumer, DEFAULT_MAX_DELIVERIES, PULL_EXPIRES_MS, retryIn, term, type Consumer, type ConsumerSettings, type CoreEventSettings, type CoreRead, type Verdict,
} from "./consumer.ts";
export {
  DEAD_LETTER_MAX_AGE_MS, DEAD_LETTER_MAX_BYTES, DEAD_LETTER_REASONS, DeadLetterNotFoundError, deadLetterHeader, deadLetterStreamName, deadLetterSubject, deleteDeadLetter, ensureDeadLetterStream,
  listDeadLetters, publishDeadLetter, REPLAYED_FROM_HEADER, replayDeadLetter, type DeadLetter, type DeadLetterReason,
} from "./dead-letters.ts";
export { createCoreSubscription, type CoreSubscription, type CoreSubscriptionSettings } from "./core-subscription.ts";
export { activeTraceparent, withConsumerSpan } from "./tracing.ts";
