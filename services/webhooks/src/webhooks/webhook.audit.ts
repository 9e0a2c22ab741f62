// Audit entries of changes made by an admin in the support application's settings. The audit
// log is the content service's: this service hands each entry over as a webhooks.audit.recorded
// event, written to its outbox in the change's transaction, and content records it once per
// event id. Changes made with an API key (the REST API) or by a tenant file carry no acting
// user and are not recorded here. An entry never holds a signing secret.
import { writeEvents } from "@support/bus";
import type { Kysely } from "@support/db";
import { newEvent } from "@support/events";
import type { WebhooksDatabase } from "../database.ts";
import type { Webhook } from "./webhook.ts";

/** The admin making a change in the settings, and the address their request came from. */
export interface AuditOrigin {
  actorUserId?: string | undefined;
  clientAddress?: string | undefined;
}

export type WebhookAuditAction =
  | "webhook.created"
  | "webhook.updated"
  | "webhook.deleted"
  | "webhook.secret_rotated"
  | "webhook.test_sent"
  | "webhook.delivery_retried";

/** A subscription's settings as the audit log shows them (never its secret). */
export function auditedSettings(webhook: Webhook): Record<string, unknown> {
  return {
    url: webhook.url,
    // Null when empty, as the REST API shows it.
    description: webhook.description === "" ? null : webhook.description,
    eventTypes: webhook.eventTypes,
    gameIds: webhook.gameIds,
    enabled: webhook.enabled,
    ...(webhook.disabledReason ? { disabledReason: webhook.disabledReason } : {}),
  };
}

export interface WebhookAuditEntry {
  action: WebhookAuditAction;
  webhook: Pick<Webhook, "id" | "companyId">;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  detail?: Record<string, unknown>;
}

/** Writes the entry's event to the outbox in `trx` when an admin acted; nothing otherwise. */
export async function recordAudit(trx: Kysely<WebhooksDatabase>, origin: AuditOrigin | undefined, entry: WebhookAuditEntry, at = new Date()): Promise<void> {
  if (!origin?.actorUserId) return;
  await writeEvents(trx, [
    newEvent("webhooks.audit.recorded", entry.webhook.companyId, {
      action: entry.action,
      actor: { type: "user", id: origin.actorUserId },
      target: { type: "webhook", id: entry.webhook.id },
      before: entry.before ?? null,
      after: entry.after ?? null,
      detail: entry.detail ?? {},
      clientAddress: origin.clientAddress ?? null,
      createdAt: at.toISOString(),
    }),
  ]);
}

/** Runs `work` in the caller's transaction, or in one of its own. */
export async function inTransaction<T>(db: Kysely<WebhooksDatabase>, work: (trx: Kysely<WebhooksDatabase>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute(work);
}
