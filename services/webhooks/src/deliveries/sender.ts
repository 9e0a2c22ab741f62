// One HTTP attempt of a delivery: the target checked again (it may resolve elsewhere now), the
// connection pinned to the checked addresses, the Standard Webhooks headers, no redirects
// followed (a 3xx is a failure like any non-2xx), a deadline on the whole exchange, and at
// most MAX_RESPONSE_BODY_BYTES of the answer kept.
import { Agent, request } from "undici";
import { Webhook as Signer } from "standardwebhooks";
import { checkTarget, pinnedLookup, type TargetPolicy } from "../security/target.ts";
import { MAX_RESPONSE_BODY_BYTES, parseRetryAfter, type AttemptResult } from "./delivery.ts";

export interface SendSettings {
  policy: TargetPolicy;
  timeoutMs: number;
  userAgent?: string;
}

export interface OutgoingDelivery {
  id: string;
  url: string;
  payload: string;
  /** The current secret, then the previous one while a rotation's overlap lasts. */
  secrets: string[];
}

/** `webhook-signature`: one "v1,<base64>" per secret, space-separated. */
export function signatures(delivery: Pick<OutgoingDelivery, "id" | "payload" | "secrets">, at: Date): string {
  return delivery.secrets.map((secret) => new Signer(secret).sign(delivery.id, at, delivery.payload)).join(" ");
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_RESPONSE_BODY_BYTES) break;
  }
  body.destroy();
  // Cut on a byte count, then drop a partial character at the cut.
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES).toString("utf8").replace(/\uFFFD+$/, "");
}

function describe(error: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `timeout after ${timeoutMs / 1000} s`;
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "connection closed by the receiver";
    case "ENOTFOUND":
      return "target host does not resolve";
    default:
      // Never an internal address or stack: the code only, or a generic sentence.
      return code ? `network error (${code})` : "network error";
  }
}

/** Thrown when `cancel` aborted the attempt (the service is stopping): nothing is known of its outcome. */
export class AttemptCancelled extends Error {
  constructor() {
    super("attempt cancelled");
    this.name = "AttemptCancelled";
  }
}

export async function sendDelivery(delivery: OutgoingDelivery, settings: SendSettings, now = new Date(), cancel?: AbortSignal): Promise<AttemptResult> {
  const target = await checkTarget(delivery.url, settings.policy);
  if (!target.ok) return { error: target.reason };
  const agent = new Agent({ connect: { lookup: pinnedLookup(target.addresses), timeout: settings.timeoutMs } });
  const timer = AbortSignal.timeout(settings.timeoutMs);
  const signal = cancel ? AbortSignal.any([timer, cancel]) : timer;
  try {
    const response = await request(target.url, {
      method: "POST",
      dispatcher: agent,
      signal,
      headers: {
        "content-type": "application/json",
        "user-agent": settings.userAgent ?? "support-webhooks/1",
        "webhook-id": delivery.id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signatures(delivery, now),
      },
      body: delivery.payload,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
    });
    const body = await readLimited(response.body).catch(() => "");
    const retryAfter = response.headers["retry-after"];
    return {
      status: response.statusCode,
      body,
      retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, new Date()),
    };
  } catch (error) {
    if (cancel?.aborted && !timer.aborted) throw new AttemptCancelled();
    return { error: describe(error, settings.timeoutMs, timer.aborted) };
  } finally {
    void agent.destroy().catch(() => undefined);
  }
}
