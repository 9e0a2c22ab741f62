// Every migration of the webhooks schema, in order. Migrations never import application code.
import type { Migration } from "@support/db";
import * as createOutbox from "./2026_11_28_00_00_00_create_outbox.ts";
import * as addOutboxTraceparent from "./2026_11_28_00_01_00_add_outbox_traceparent.ts";
import * as createWebhooks from "./2026_11_28_01_00_00_create_webhooks.ts";
import * as indexInFlightDeliveries from "./2026_11_28_02_00_00_index_in_flight_deliveries.ts";
import * as createIdempotencyKeys from "./2026_11_28_03_00_00_create_idempotency_keys.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_28_00_00_00_create_outbox": createOutbox,
  "2026_11_28_00_01_00_add_outbox_traceparent": addOutboxTraceparent,
  "2026_11_28_01_00_00_create_webhooks": createWebhooks,
  "2026_11_28_02_00_00_index_in_flight_deliveries": indexInFlightDeliveries,
  "2026_11_28_03_00_00_create_idempotency_keys": createIdempotencyKeys,
};
