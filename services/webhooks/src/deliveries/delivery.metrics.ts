// support_webhook_deliveries_total{event_type, outcome}, support_webhook_delivery_duration_seconds,
// and, read at each scrape, support_webhook_deliveries_pending and
// support_webhook_oldest_pending_age_seconds (the backlog an alert watches).
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { addScrapeSource, DURATION_BUCKETS, sharedForScrape, type Registry } from "@support/metrics";
import { Counter, Histogram } from "prom-client";
import type { WebhooksDatabase } from "../database.ts";
import { isPublicEventType } from "../webhooks/webhook.ts";
import { pendingBacklog } from "./delivery.repository.ts";

export type AttemptOutcome = "succeeded" | "retry" | "failed";

export interface DeliveryMetrics {
  attempted(eventType: string, outcome: AttemptOutcome, seconds: number): void;
}

export function registerDeliveryMetrics(registry: Registry, db: Kysely<WebhooksDatabase>, logger: Logger): DeliveryMetrics {
  const attempts = new Counter({
    name: "support_webhook_deliveries_total",
    help: "Delivery attempts, by public event type and outcome (succeeded, retry: failed and scheduled again, failed: retries exhausted)",
    labelNames: ["event_type", "outcome"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "support_webhook_delivery_duration_seconds",
    help: "Duration of delivery attempts (target check, connection, answer), by outcome",
    labelNames: ["outcome"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const read = sharedForScrape(() => pendingBacklog(db, new Date()));
  const options = { onError: (error: unknown) => logger.warn({ err: error }, "pending deliveries not counted for metrics") };
  addScrapeSource(registry, { name: "support_webhook_deliveries_pending", help: "Deliveries waiting for their first or next attempt" }, async () => [{ value: (await read()).pending }], options);
  addScrapeSource(
    registry,
    { name: "support_webhook_oldest_pending_age_seconds", help: "Age of the oldest pending delivery (0 when none)" },
    async () => [{ value: (await read()).oldestAgeSeconds }],
    options,
  );
  return {
    attempted(eventType, outcome, seconds) {
      // The label takes the known types only, so a stray value cannot grow the series.
      attempts.inc({ event_type: isPublicEventType(eventType) ? eventType : "other", outcome });
      duration.observe({ outcome }, seconds);
    },
  };
}
