// The delivery engine. Every replica runs one: it claims due deliveries (the head of each
// webhook + ticket chain, a few per webhook at most across replicas, see claimDue), sends them
// with at most WEBHOOK_CONCURRENCY in flight, and records each outcome. All state is in the
// database: a replica that dies mid-attempt leaves a lease that expires, and another replica
// sends that delivery again (at least once). New deliveries wake it at once; otherwise it
// looks every WEBHOOK_POLL_INTERVAL_MS (retries that became due, other replicas' inserts).
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { createClaimLoop, type Startable } from "@support/runtime";
import type { WebhooksDatabase } from "../database.ts";
import type { DeliveryMetrics } from "../deliveries/delivery.metrics.ts";
import { claimDue, recordAttempt, releaseClaim } from "../deliveries/delivery.repository.ts";
import { disableFailing } from "../deliveries/delivery.service.ts";
import { isSuccess, MAX_RESPONSE_BODY_BYTES, nextAttemptAt, type AttemptResult, type Delivery } from "../deliveries/delivery.ts";
import { AttemptCancelled, sendDelivery } from "../deliveries/sender.ts";
import type { SecretBox } from "../security/secret-box.ts";
import type { TargetPolicy } from "../security/target.ts";
import { clearFailing, findWebhook, markFailing, readSecrets } from "../webhooks/webhook.repository.ts";
import { activePreviousExpiry } from "../webhooks/webhook.ts";

export interface DeliveryEngineSettings {
  db: Kysely<WebhooksDatabase>;
  box: SecretBox;
  logger: Logger;
  policy: TargetPolicy;
  metrics?: DeliveryMetrics;
  concurrency: number;
  perWebhookConcurrency: number;
  pollIntervalMs: number;
  timeoutMs: number;
  /** Seconds before each retry; its length is the number of retries. */
  retrySchedule: number[];
  retryAfterMaxSeconds: number;
  disableAfterHours: number;
}

export interface DeliveryEngine extends Startable {
  /** Look for due deliveries now (new ones were inserted). */
  wake(): void;
}

/**
 * How long a claim holds a delivery: the attempt's deadline plus as much again (at least 5 s)
 * for the target check and the recording. A replica that died holding it is replaced then.
 */
const leaseMs = (timeoutMs: number) => timeoutMs + Math.max(5_000, timeoutMs);

export function createDeliveryEngine(settings: DeliveryEngineSettings): DeliveryEngine {
  const { db, logger } = settings;
  // Aborted at stop (the loop's beforeDrain).
  let cancel = new AbortController();

  async function attempt(delivery: Delivery, lockedUntil: Date): Promise<void> {
    const started = new Date();
    const webhook = await findWebhook(db, delivery.companyId, delivery.webhookId);
    const sealed = webhook && (await readSecrets(db, webhook.id));
    // Deleted meanwhile: its log went with it.
    if (!webhook || !sealed) return;
    // A secret sealed under another key opens to nothing: the delivery cannot be signed with it
    // until the key is back or the secret is rotated.
    const open = (value: string) => {
      try {
        return settings.box.open(value);
      } catch {
        logger.error({ webhookId: webhook.id }, "signing secret cannot be decrypted: was WEBHOOK_SECRETS_KEY changed?");
        return undefined;
      }
    };
    const current = open(sealed.secret);
    const previous = sealed.previous && activePreviousExpiry({ previousSecretExpiresAt: sealed.previousExpiresAt }, started) ? open(sealed.previous) : undefined;
    const secrets = current === undefined ? [] : previous === undefined ? [current] : [current, previous];
    let result: AttemptResult;
    try {
      result = secrets.length === 0 ? { error: "signing secret unavailable" } : await sendDelivery(
        { id: delivery.id, url: delivery.url ?? webhook.url, payload: delivery.payload, secrets },
        { policy: settings.policy, timeoutMs: settings.timeoutMs },
        started,
        cancel.signal,
      );
    } catch (error) {
      if (!(error instanceof AttemptCancelled)) throw error;
      await releaseClaim(db, delivery.id, lockedUntil);
      return;
    }
    const now = new Date();
    const attempts = delivery.attempts + 1;
    const ok = isSuccess(result);
    const next = ok ? null : nextAttemptAt(attempts, result, settings.retrySchedule, settings.retryAfterMaxSeconds, now);
    const status = ok ? "succeeded" : next ? "pending" : "failed";
    const recorded = await recordAttempt(db, delivery.id, lockedUntil, {
      status,
      attempts,
      nextAttemptAt: next,
      lastAttemptAt: now,
      lastResponseStatus: result.status ?? null,
      lastResponseBody: result.body === undefined ? null : result.body.slice(0, MAX_RESPONSE_BODY_BYTES),
      lastError: result.error ?? null,
    });
    settings.metrics?.attempted(delivery.eventType, ok ? "succeeded" : status === "failed" ? "failed" : "retry", (now.getTime() - started.getTime()) / 1000);
    if (!recorded) return;
    if (ok) {
      await clearFailing(db, webhook.id);
      return;
    }
    logger.debug({ deliveryId: delivery.id, webhookId: webhook.id, status: result.status, error: result.error, attempts }, "delivery attempt failed");
    // Rule calls go to many URLs through one subscription: one failing receiver must not turn
    // off every rule's calls, so their failures stay in their own deliveries.
    if (webhook.source === "rules") return;
    const failing = await markFailing(db, webhook.id, now);
    if (failing?.enabled && failing.failingSince && now.getTime() - failing.failingSince.getTime() >= settings.disableAfterHours * 3_600_000) {
      const reason = `every delivery failed for ${settings.disableAfterHours} hours`;
      if (await disableFailing(db, failing, reason, now)) logger.warn({ webhookId: webhook.id, companyId: webhook.companyId }, "webhook disabled after failing deliveries");
    }
  }

  const loop = createClaimLoop<{ delivery: Delivery; lockedUntil: Date }>({
    name: "delivery engine",
    logger,
    concurrency: settings.concurrency,
    pollIntervalMs: settings.pollIntervalMs,
    async claim(free) {
      const now = new Date();
      const lockedUntil = new Date(now.getTime() + leaseMs(settings.timeoutMs));
      const claimed = await claimDue(db, free, settings.perWebhookConcurrency, now, lockedUntil);
      return claimed.map((delivery) => ({ delivery, lockedUntil }));
    },
    run: ({ delivery, lockedUntil }) => attempt(delivery, lockedUntil),
    runFailed: (error, { delivery }) => logger.error({ err: error, deliveryId: delivery.id }, "delivery attempt not recorded; retried when its claim expires"),
    onStart: () => {
      cancel = new AbortController();
    },
    // Attempts under way are cut and their claims released, so that the next start (or another
    // replica) sends them again at once, under the same webhook-id.
    beforeDrain: () => cancel.abort(),
  });

  return { wake: loop.wake, start: loop.start, stop: loop.stop };
}
