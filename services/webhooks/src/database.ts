// Tables of the webhooks schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { IdempotencyKeysTable } from "@support/idempotency";
import type { DeliveryTables } from "./deliveries/delivery.table.ts";
import type { WebhookTables } from "./webhooks/webhook.table.ts";

export type WebhooksDatabase = OutboxTable & WebhookTables & DeliveryTables & IdempotencyKeysTable;
