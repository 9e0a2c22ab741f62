// Every migration of the webhooks schema, in order. Migrations never import application code; the
// outbox and idempotency tables come with the libraries that own them, under the names first recorded.
import type { Migration } from "@support/db";
import { addOutboxTraceparentMigration, createOutboxMigration } from "@support/bus";
import { createIdempotencyKeysMigration } from "@support/idempotency";
import * as createWebhooks from "./2026_11_28_01_00_00_create_webhooks.ts";
import * as indexInFlightDeliveries from "./2026_11_28_02_00_00_index_in_flight_deliveries.ts";
import * as ruleCalls from "./2026_12_11_00_00_00_rule_calls.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_28_00_00_00_create_outbox": createOutboxMigration,
  "2026_11_28_00_01_00_add_outbox_traceparent": addOutboxTraceparentMigration,
  "2026_11_28_01_00_00_create_webhooks": createWebhooks,
  "2026_11_28_02_00_00_index_in_flight_deliveries": indexInFlightDeliveries,
  "2026_11_28_03_00_00_create_idempotency_keys": createIdempotencyKeysMigration,
  "2026_12_11_00_00_00_rule_calls": ruleCalls,
};
