// A server span per request, named "METHOD /route/template" once the router has matched, the
// child of the caller's span when the request carries a W3C `traceparent`. Active while the
// request runs, so that its RPCs carry the trace on and its log lines name it. Without a
// registered tracer provider the span is the OpenTelemetry API's no-op.
import { ProxyTracerProvider, ROOT_CONTEXT, SpanKind, SpanStatusCode, context, isSpanContextValid, propagation, trace, type TextMapGetter } from "@opentelemetry/api";
import type { IncomingHttpHeaders } from "node:http";
import type { Middleware } from "koa";
import { matchedRoute } from "../route-dispatch.ts";

const tracer = trace.getTracer("@support/gateway");

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  get: (headers, key) => headers[key],
  keys: (headers) => Object.keys(headers),
};

/**
 * Whether a tracer provider is registered (startTracing, which runs before the server is
 * built, or a test's in-memory tracing): without one every span is the API's no-op.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer("@support/gateway") !== undefined;
}

export function tracing(): Middleware {
  return async (ctx, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.req.headers, headerGetter);
    // The path without its query string: queries may carry player e-mails and tokens.
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": ctx.method, "url.path": ctx.path, "url.scheme": ctx.protocol } },
      parent,
    );
    // Without tracing: nothing to record or activate (most of the cost of the no-op path).
    if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return next();
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      const route = matchedRoute(ctx);
      if (route !== undefined) {
        span.setAttribute("http.route", route);
        span.updateName(`${ctx.method} ${route}`);
      }
      span.setAttribute("http.response.status_code", ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
