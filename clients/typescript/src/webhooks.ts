// Verification of webhook deliveries (Standard Webhooks): the signature is an HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<raw body>" under the endpoint's secret (`whsec_<base64>`),
// and a delivery older or newer than five minutes is refused against replays.
import { Webhook, WebhookVerificationError } from "standardwebhooks";

export { WebhookVerificationError };

/** Request headers as a Fetch `Headers`, or as Node's `req.headers` (Express, Koa, node:http). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

/**
 * Checks a delivery and returns its parsed JSON body; throws `WebhookVerificationError` when
 * a header is missing, the timestamp is more than five minutes away, or no signature matches.
 *
 * `body` must be the raw bytes as received (not re-serialized JSON). During a secret rotation
 * the sender signs with both secrets (space-separated signatures) and either matches; pass
 * several secrets here to accept deliveries signed with any of them.
 */
export function verifyWebhook<T = unknown>(body: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[]): T {
  const payload = typeof body === "string" ? body : new TextDecoder().decode(body);
  const wanted: Record<string, string> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value = headerValue(headers, name);
    if (value === undefined) throw new WebhookVerificationError(`Missing header ${name}`);
    wanted[name] = value;
  }
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0) throw new Error("verifyWebhook needs at least one secret");
  let failure: unknown;
  for (const candidate of secrets) {
    try {
      return new Webhook(candidate).verify(payload, wanted) as T;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}
