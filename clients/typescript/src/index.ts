// The typed client of the Player Support REST API. The types in gen/openapi.ts are generated
// from the gateway's OpenAPI document, so every operation the document has is a typed call.
export { createSupportClient, idempotencyKeys, withoutIdempotencyKey, type SupportClient, type SupportClientOptions } from "./client.ts";
export { SupportApiError, unwrap, type ErrorBody } from "./errors.ts";
export { IDEMPOTENCY_KEY_HEADER, isSafeToRetry, parseRetryAfter, retryAfterWithJitter, withRetries, type FetchFunction, type RetryEvent, type RetryOptions } from "./retry.ts";
export { listTickets, ticketPages, type ListTicketsQuery, type PageOptions, type Ticket } from "./tickets.ts";
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from "./webhooks.ts";
export type { components, operations, paths } from "./gen/openapi.ts";
