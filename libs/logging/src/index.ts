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

/**
 * What belongs to the call being served: its request id (for logs and outgoing RPCs), and the
 * deadline and cancellation that outgoing calls made for it respect (libs/rpc). One store for
 * all of them, so that a request or an RPC enters its context once.
 */
export interface RequestContext {
  requestId?: string | undefined;
  /** Epoch milliseconds after which the caller no longer waits; undefined: no deadline. */
  deadline?: number | undefined;
  /** Aborted when the call ends early (deadline passed, caller hung up, shutdown). */
  signal?: AbortSignal | undefined;
  /**
   * The call being handled declares no side effects (a read: its RPC method's
   * idempotency_level is NO_SIDE_EFFECTS); its queries may take the database pool's read lane.
   */
  readOnly?: boolean | undefined;
}

const requestContext = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `context` as the whole current request context. */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return requestContext.run(context, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return requestContext.getStore();
}

/** Runs `fn` with `requestId` as the current request id (for logs and outgoing RPCs). */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ ...requestContext.getStore(), requestId }, fn);
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

/** Longest a line waits before it is handed to the write (LOG_FLUSH_INTERVAL_MS, 0: at once). */
export const DEFAULT_LOG_FLUSH_INTERVAL_MS = 10;

/**
 * Lines held past this many bytes are handed to the write without waiting for the interval:
 * the largest single write of pino's destination (sonic-boom's maxWrite), so a batch is one write.
 */
const BATCH_BYTES = 16 * 1024;

/** An integer setting of at least `min` from the environment; undefined when unset or not one. */
function settingFromEnv(name: string, min: number): number | undefined {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && process.env[name] !== "" && Number.isInteger(value) && value >= min ? value : undefined;
}

/**
 * stderr, written asynchronously and in batches.
 *
 * Batches: a line is held for at most `flushIntervalMs` and written together with the lines
 * logged meanwhile. Under load this is one write for hundreds of lines instead of one write
 * (and one round through the thread pool) per line, which was the largest single cost of the
 * gateway's access log. A process with nothing else to do waits for the interval; one that
 * exits at once (process.exit) has the held lines written synchronously by pino's exit flush.
 * `flush`, `flushSync` and `end` write the held lines first.
 *
 * Bounded: lines wait in memory while the reader of stderr (a terminal, a pipe, the container
 * runtime's log collector) does not keep up; without a bound a stalled reader grows the process
 * until it is killed. Past `maxBytes` new lines are dropped instead, and the number dropped is
 * logged once the buffer has room again.
 */
export function createLogDestination(options: { fd?: number; maxBytes?: number; flushIntervalMs?: number } = {}): ReturnType<typeof pino.destination> {
  // 0 would be no bound at all (sonic-boom's maxLength): not a value the setting accepts.
  const maxBytes = options.maxBytes ?? settingFromEnv("LOG_BUFFER_MAX_BYTES", 1) ?? DEFAULT_LOG_BUFFER_MAX_BYTES;
  const flushIntervalMs = options.flushIntervalMs ?? settingFromEnv("LOG_FLUSH_INTERVAL_MS", 0) ?? DEFAULT_LOG_FLUSH_INTERVAL_MS;
  const stream = pino.destination({ dest: options.fd ?? 2, sync: false, maxLength: maxBytes });
  let dropped = 0;
  let writingNotice = false;
  let noticeDropped = false;
  // sonic-boom drops a whole write when it does not fit: count the lines in it.
  stream.on("drop", (data: string | Buffer) => {
    if (writingNotice) noticeDropped = true;
    else dropped += countLines(String(data));
  });
  const write = stream.write.bind(stream);
  // The first batch that fits again is followed by how many lines were lost, as a JSON line of
  // its own.
  const writeBatch = (data: string) => {
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

  let held: string[] = [];
  let heldBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const takeHeld = (): string | undefined => {
    clearTimeout(timer);
    timer = undefined;
    if (held.length === 0) return undefined;
    const batch = held.length === 1 ? held[0]! : held.join("");
    held = [];
    heldBytes = 0;
    return batch;
  };
  const release = () => {
    const batch = takeHeld();
    if (batch !== undefined) writeBatch(batch);
  };
  if (flushIntervalMs === 0) stream.write = writeBatch;
  else
    stream.write = (data: string) => {
      held.push(data);
      heldBytes += data.length;
      if (heldBytes >= BATCH_BYTES) release();
      // Not unref'd: a process that is otherwise done waits for it (at most the interval)
      // and writes its last lines the usual way.
      else if (timer === undefined) timer = setTimeout(release, flushIntervalMs);
      return true;
    };
  // What pino calls on exit, when no asynchronous write can finish any more: the held lines go
  // into the destination's buffer without starting one (a write starts only from minLength
  // bytes), and its flushSync writes them with the rest.
  const flushSync = stream.flushSync.bind(stream);
  stream.flushSync = () => {
    const batch = takeHeld();
    if (batch !== undefined) {
      // sonic-boom's own setting (its types leave it out).
      const settings = stream as unknown as { minLength: number };
      const minLength = settings.minLength;
      settings.minLength = Number.MAX_SAFE_INTEGER;
      try {
        writeBatch(batch);
      } finally {
        settings.minLength = minLength;
      }
    }
    flushSync();
  };
  for (const name of ["flush", "end"] as const) {
    const original = stream[name].bind(stream) as (...args: unknown[]) => unknown;
    (stream as unknown as Record<string, (...args: unknown[]) => unknown>)[name] = (...args: unknown[]) => {
      release();
      return original(...args);
    };
  }
  return stream;
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return Math.max(lines, 1);
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

// Every line written inside a request context names its request, and inside a span its trace
// and span. Without tracing there is no context manager: context.active() is the empty root
// context and this costs one map lookup.
function contextFields(): { requestId?: string; trace_id?: string; span_id?: string } {
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
}

/**
 * A writer of one kind of line at `info`, for a line written on every request (the gateway's
 * access log): the line `logger.info(fields, msg)` writes (level, time, the logger's bindings,
 * the request id and trace of the current context, the fields, msg), built directly. pino's
 * general path (mixin merge, serializers, redaction) cost about 2 µs a line. So the fields are
 * never redacted: they must be plain strings and numbers that need no redaction.
 */
export function infoLineWriter<Fields extends Record<string, string | number>>(logger: Logger, msg: string): (fields: Fields) => void {
  const symbols = pino.symbols;
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[symbols.streamSym] as { write(line: string): unknown };
  const time = internals[symbols.timeSym] as () => string;
  const bindings = internals[symbols.chindingsSym] as string;
  const start = `{"level":${logger.levels.values.info}`;
  const end = `,"msg":${JSON.stringify(msg)}}\n`;
  return (fields) => {
    if (!logger.isLevelEnabled("info")) return;
    let line = start + time() + bindings;
    const context = contextFields();
    if (context.requestId !== undefined) line += `,"requestId":${JSON.stringify(context.requestId)}`;
    if (context.trace_id !== undefined) line += `,"trace_id":"${context.trace_id}","span_id":"${context.span_id}"`;
    for (const key in fields) {
      const value = fields[key];
      line += `,${JSON.stringify(key)}:${typeof value === "number" ? (Number.isFinite(value) ? value : null) : JSON.stringify(value)}`;
    }
    stream.write(line + end);
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.LOG_LEVEL ?? "info",
    base: { service: settings.service },
    timestamp: isoTime,
    mixin: contextFields,
    redact: { paths: ["req.headers.authorization", "*.authorization", "*.apiKey", "*.secret"], censor: "[redacted]" },
  };
  return pino(options, settings.destination ?? createLogDestination(settings.maxBufferBytes !== undefined ? { maxBytes: settings.maxBufferBytes } : {}));
}

export { backoffDelay, createFailureEpisode, type FailureEpisode } from "./episode.ts";
