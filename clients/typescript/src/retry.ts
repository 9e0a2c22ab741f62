// Retries of answers that say "try again later" (429 Too Many Requests, 503 Service
// Unavailable), only for requests that are safe to send twice: reads, and writes that carry an
// Idempotency-Key (the server answers a repeated key with the first outcome).

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

export interface RetryEvent {
  /** The attempt that got `status` (1 for the first). */
  attempt: number;
  status: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** Whether `delayMs` comes from the answer's Retry-After header (else: jittered backoff). */
  fromRetryAfter: boolean;
  method: string;
  url: string;
}

export interface RetryOptions {
  /** Most attempts of one request, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** Without Retry-After, the wait before retry n is a random delay up to baseDelayMs·2^(n-1) (default 200 ms). */
  baseDelayMs?: number;
  /** Longest wait (default 30 s): a Retry-After asking for more is not waited for, its answer is returned; a wait with its random part is cut to it. */
  maxDelayMs?: number;
  /** Told before each wait (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
}

export type FetchFunction = (request: Request, init?: Record<string, unknown>) => Promise<Response>;

const RETRYABLE_STATUSES = new Set([429, 503]);

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retrying an answer that said Retry-After: at least what it asked, plus a random
 * part of up to one more second (never more than the Retry-After itself). Clients refused in the
 * same instant, as a flood refuses hundreds, then come back spread over that second rather than
 * all at once, so the retries meet free capacity instead of the next wall of refusals.
 */
export function retryAfterWithJitter(retryAfterMs: number, random: () => number = Math.random): number {
  return Math.round(retryAfterMs + random() * Math.min(retryAfterMs, 1000));
}

/** Whether sending `request` again cannot do the same thing twice. */
export function isSafeToRetry(request: Request): boolean {
  return request.method === "GET" || request.method === "HEAD" || request.headers.has(IDEMPOTENCY_KEY_HEADER);
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Wraps `fetch` so that 429 and 503 answers to safe requests are retried, honouring Retry-After. */
export function withRetries(fetch: FetchFunction, options: RetryOptions = {}): FetchFunction {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 3));
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (request, init) => {
    if (maxAttempts === 1 || !isSafeToRetry(request)) return fetch(request, init);
    for (let attempt = 1; ; attempt++) {
      // Each attempt sends a copy: a body can be read only once.
      const response = await fetch(request.clone(), init);
      if (!RETRYABLE_STATUSES.has(response.status) || attempt >= maxAttempts) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      if (retryAfter !== undefined && retryAfter > maxDelayMs) return response;
      const delayMs = retryAfter !== undefined ? Math.min(maxDelayMs, retryAfterWithJitter(retryAfter)) : Math.round(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));
      await response.body?.cancel();
      options.onRetry?.({ attempt, status: response.status, delayMs, fromRetryAfter: retryAfter !== undefined, method: request.method, url: request.url });
      await sleep(delayMs, request.signal);
    }
  };
}
