import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./gen/openapi.ts";
import { IDEMPOTENCY_KEY_HEADER, withRetries, type FetchFunction, type RetryOptions } from "./retry.ts";

/** A typed call for every operation of the API: `client.GET("/tickets", ...)`, `client.POST("/tickets", ...)`, ... */
export type SupportClient = Client<paths>;

export interface SupportClientOptions {
  /** Where the gateway answers, e.g. `https://support.example.com`. */
  baseUrl: string;
  /** An API key of the company (sent as `Authorization: Bearer <key>`). */
  apiKey?: string;
  /** A web support session code instead, for the player side (`Authorization: Session <code>`). */
  sessionCode?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Retries of 429 and 503 (see `RetryOptions`); `false` turns them off. */
  retry?: RetryOptions | false;
  /** Whether every POST and DELETE gets a random Idempotency-Key when it has none (default true). */
  idempotencyKeys?: boolean;
  /** The fetch to send requests with (default: the global one). */
  fetch?: FetchFunction;
}

/**
 * Gives every POST and DELETE a fresh random Idempotency-Key unless the call set one: a
 * retried write is then applied once, and the retry layer knows the request is safe to repeat.
 */
export const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if ((request.method === "POST" || request.method === "DELETE") && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
      request.headers.set(IDEMPOTENCY_KEY_HEADER, globalThis.crypto.randomUUID());
    }
    return request;
  },
};

/**
 * Per call, sends no Idempotency-Key (and so is never retried):
 * `client.POST("/tickets", { body, middleware: [withoutIdempotencyKey] })`.
 */
export const withoutIdempotencyKey: Middleware = {
  onRequest({ request }) {
    request.headers.delete(IDEMPOTENCY_KEY_HEADER);
    return request;
  },
};

export function createSupportClient(options: SupportClientOptions): SupportClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  else if (options.sessionCode !== undefined) headers.authorization = `Session ${options.sessionCode}`;
  // Looked up at call time, so a fetch replaced after the client was made is still used.
  const send: FetchFunction = options.fetch ?? ((request, init) => globalThis.fetch(request, init));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers,
    fetch: options.retry === false ? send : withRetries(send, options.retry),
  });
  if (options.idempotencyKeys !== false) client.use(idempotencyKeys);
  return client;
}
