// Structured logs (pino, JSON to stderr) with the request id of the current call attached
// automatically: the gateway starts a request context, libs/rpc carries the id across
// Connect calls in the `x-request-id` header, and every service logs under the same id.
// Inside an active OpenTelemetry span, every line also carries its trace_id and span_id.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { pino, type Logger, type LoggerOptions } from "pino";

export type { Logger };

export const REQUEST_ID_HEADER = "x-request-id";

interface RequestContext {
  requestId: string;
}

const requestContext = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `requestId` as the current request id (for logs and outgoing RPCs). */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

// A request id comes from outside (a client's header): accept only short, printable ids so that
// a caller cannot inject log lines or huge values; anything else is replaced.
const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | null | undefined): string {
  return header && acceptableRequestId.test(header) ? header : randomUUID();
}

export interface LoggerSettings {
  service: string;
  level?: string;
  /** A writable destination; stderr by default so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
  /** Bound of the default destination's buffer; LOG_BUFFER_MAX_BYTES or 16 MiB by default. */
  maxBufferBytes?: number;
}

export const DEFAULT_LOG_BUFFER_MAX_BYTES = 16 * 1024 * 1024;

/**
 * stderr, written asynchronously. Lines wait in memory while the reader of stderr (a terminal,
 * a pipe, the container runtime's log collector) does not keep up; without a bound a stalled
 * reader grows the process until it is killed. Past `maxBytes` new lines are dropped instead,
 * and the number dropped is logged once the buffer has room again.
 */
export function createLogDestination(options: { fd?: number; maxBytes?: number } = {}): ReturnType<typeof pino.destination> {
  const fromEnv = Number(process.env.LOG_BUFFER_MAX_BYTES);
  const maxBytes = options.maxBytes ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_LOG_BUFFER_MAX_BYTES);
  const stream = pino.destination({ dest: options.fd ?? 2, sync: false, maxLength: maxBytes });
  let dropped = 0;
  let writingNotice = false;
  let noticeDropped = false;
  stream.on("drop", () => {
    if (writingNotice) noticeDropped = true;
    else dropped++;
  });
  // The first line that fits again is followed by how many were lost, as a JSON line of its own.
  const write = stream.write.bind(stream);
  stream.write = (data: string) => {
    const before = dropped;
    const result = write(data);
    if (dropped > 0 && dropped === before) {
      writingNotice = true;
      noticeDropped = false;
      write(`${JSON.stringify({ level: 40, time: new Date().toISOString(), msg: `${dropped} log lines dropped: the reader of the logs did not keep up` })}\n`);
      writingNotice = false;
      if (!noticeDropped) dropped = 0;
    }
    return result;
  };
  return stream;
}

// pino's isoTime formats a new Date for every line; the lines of one millisecond (many, under
// load) share one string. The same output.
let lastTimeMs = -1;
let lastTime = "";
function isoTime(): string {
  const now = Date.now();
  if (now !== lastTimeMs) {
    lastTimeMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.LOG_LEVEL ?? "info",
    base: { service: settings.service },
    timestamp: isoTime,
    // Every line written inside a request context names its request, and inside a span its
    // trace and span. Without tracing there is no context manager: context.active() is the
    // empty root context and this costs one map lookup.
    mixin: () => {
      const requestId = currentRequestId();
      const fields: { requestId?: string; trace_id?: string; span_id?: string } = requestId ? { requestId } : {};
      const span = trace.getSpan(context.active());
      if (span) {
        const spanContext = span.spanContext();
        if (isSpanContextValid(spanContext)) {
          fields.trace_id = spanContext.traceId;
          fields.span_id = spanContext.spanId;
        }
      }
      return fields;
    },
    redact: { paths: ["req.headers.authorization", "*.authorization", "*.apiKey", "*.secret"], censor: "[redacted]" },
  };
  return pino(options, settings.destination ?? createLogDestination(settings.maxBufferBytes !== undefined ? { maxBytes: settings.maxBufferBytes } : {}));
}

export { backoffDelay, createFailureEpisode, type FailureEpisode } from "./episode.ts";
