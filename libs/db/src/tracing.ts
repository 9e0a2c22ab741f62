// A span per Postgres query made inside a trace: db.system=postgresql and the parameterised SQL
// text (db.statement), never the values. A query outside any recording span (the outbox
// relay's polls, a sweep job between runs) makes none, so tracing adds no root trace per poll
// and nothing at all when it is off.
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import type pg from "pg";

const tracer = trace.getTracer("@support/db");

/** The statement's first keyword, e.g. SELECT, INSERT, BEGIN. */
function operationOf(text: string): string {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
}

/** Wraps one pooled client's promise-returning query(text, values) in a client span. */
export function traceQueries(client: pg.PoolClient, database: string): void {
  const query = client.query;
  client.query = function tracedQuery(this: pg.PoolClient, ...args: unknown[]) {
    const text = args[0];
    // Cursors and other submittables, query configs and callback calls pass through as they are.
    if (typeof text !== "string" || typeof args.at(-1) === "function" || !trace.getSpan(context.active())?.isRecording()) {
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    }
    const operation = operationOf(text);
    const span = tracer.startSpan(operation, {
      kind: SpanKind.CLIENT,
      attributes: { "db.system": "postgresql", "db.name": database, "db.operation": operation, "db.statement": text },
    });
    const result = context.with(trace.setSpan(context.active(), span), () => (query as (...a: unknown[]) => Promise<unknown>).apply(this, args));
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        const code = (error as { code?: unknown })?.code;
        if (typeof code === "string") span.setAttribute("db.response.status_code", code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
        throw error;
      },
    );
  } as typeof client.query;
}
