// Traces across Connect calls: the client opens a client span and sends its W3C `traceparent`
// in the request headers; the server continues that trace in a server span around the handler.
// Without a registered tracer provider both are the OpenTelemetry API's no-ops.
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, isSpanContextValid, propagation, trace, type Span, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";

const tracer = trace.getTracer("@support/rpc");

const headerSetter: TextMapSetter<Headers> = { set: (headers, key, value) => headers.set(key, value) };
const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

type AnyRequest = Parameters<Parameters<Interceptor>[0]>[0];

function spanAttributes(request: AnyRequest) {
  return { "rpc.system": "connect_rpc", "rpc.service": request.service.typeName, "rpc.method": request.method.name };
}

/** Records how a call ended: a Connect error's code, or a plain failure. */
function recordFailure(span: Span, error: unknown): void {
  const connectError = ConnectError.from(error);
  span.setAttribute("rpc.connect_rpc.error_code", connectError.code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: connectError.rawMessage });
}

/**
 * The no-op span of a process without tracing: nothing to record, activate or send, so the
 * call goes on untouched (activating a context is most of the cost of the no-op path).
 */
function isNoop(span: Span): boolean {
  return !span.isRecording() && !isSpanContextValid(span.spanContext());
}

/** Client side: a client span per call, whose context travels in `traceparent`. */
export function tracingClientInterceptor(): Interceptor {
  return (next) => async (request) => {
    const span = tracer.startSpan(`${request.service.typeName}/${request.method.name}`, { kind: SpanKind.CLIENT, attributes: spanAttributes(request) });
    if (isNoop(span)) return next(request);
    const callContext = trace.setSpan(context.active(), span);
    propagation.inject(callContext, request.header, headerSetter);
    try {
      // A streaming answer ends the span at its headers: the call's cost, not the stream's life.
      return await context.with(callContext, () => next(request));
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  };
}

/**
 * Server side: a server span per call, the child of the caller's span when the request carries
 * a `traceparent` (extracted onto an empty context, never onto whatever happens to be active),
 * active while the handler runs so that its queries, calls, outbox rows and log lines join it.
 */
export function tracingServerInterceptor(): Interceptor {
  return (next) => async (request) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.header, headerGetter);
    const span = tracer.startSpan(`${request.service.typeName}/${request.method.name}`, { kind: SpanKind.SERVER, attributes: spanAttributes(request) }, parent);
    if (isNoop(span)) return next(request);
    try {
      return await context.with(trace.setSpan(parent, span), () => next(request));
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  };
}
