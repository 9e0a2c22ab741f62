// Traces through the outbox and NATS: the W3C traceparent of the transaction that wrote an
// event is stored with its outbox row, the relay publishes the event in a producer span child
// of it and sends that span's traceparent as a NATS header, and a consumer handles the message
// in a consumer span child of the header. Without a registered tracer provider nothing is
// stored, sent or recorded.
import { headers as natsHeaders, type MsgHdrs } from "@nats-io/nats-core";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, isSpanContextValid, propagation, trace, type Span, type TextMapGetter } from "@opentelemetry/api";

const tracer = trace.getTracer("@support/bus");

const headerGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (headers, key) => (headers?.has(key) ? headers.get(key) : undefined),
  keys: (headers) => headers?.keys() ?? [],
};

/** The traceparent of the active span (stored with an outbox row), or null outside a trace. */
export function activeTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

export interface PublishTrace {
  span: Span;
  /** NATS headers carrying the publish span's traceparent; undefined when there is nothing to send. */
  headers: MsgHdrs | undefined;
}

/** A producer span for one outbox row, child of the trace that wrote it (if it was written in one). */
export function startPublishSpan(subject: string, eventId: string, traceparent: string | null | undefined): PublishTrace {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  const span = tracer.startSpan(
    `publish ${subject}`,
    { kind: SpanKind.PRODUCER, attributes: { "messaging.system": "nats", "messaging.operation": "publish", "messaging.destination.name": subject, "messaging.message.id": eventId } },
    parent,
  );
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  const entries = Object.entries(carrier);
  if (entries.length === 0) return { span, headers: undefined };
  const headers = natsHeaders();
  for (const [key, value] of entries) headers.set(key, value);
  return { span, headers };
}

export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}

/**
 * Runs a message handler in a consumer span, child of the message's `traceparent` header
 * (extracted onto an empty context), so that the handler's queries, calls and log lines join
 * the trace that produced the message. For durable consumers and plain subscriptions alike.
 */
export async function withConsumerSpan<T>(
  message: { subject: string; headers?: MsgHdrs },
  consumer: string,
  handle: (span: Span) => Promise<T> | T,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, message.headers, headerGetter);
  const span = tracer.startSpan(
    `process ${message.subject}`,
    { kind: SpanKind.CONSUMER, attributes: { "messaging.system": "nats", "messaging.operation": "process", "messaging.destination.name": message.subject, "messaging.consumer.group.name": consumer } },
    parent,
  );
  // Without tracing: nothing to activate (most of the cost of the no-op path).
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return handle(span);
  try {
    return await context.with(trace.setSpan(parent, span), () => handle(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
