// Queries on webhooks.webhooks. Free functions taking the executor (pool or transaction); the
// rules of when to call them live in webhook.service.ts. Secrets come and go sealed.
import type { Kysely } from "@support/db";
import type { Selectable } from "kysely";
import type { WebhooksDatabase } from "../database.ts";
import type { Webhook, WebhookFields, WebhookSource } from "./webhook.ts";
import type { WebhookTable } from "./webhook.table.ts";

type Db = Kysely<WebhooksDatabase>;
type Row = Selectable<WebhookTable>;

export function toWebhook(row: Row): Webhook {
  return {
    id: row.id,
    companyId: row.company_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    gameIds: row.game_ids,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    source: row.source as WebhookSource,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failingSince: row.failing_since,
  };
}

export interface SealedSecrets {
  secret: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

export async function insertWebhook(db: Db, id: string, companyId: string, fields: WebhookFields, source: WebhookSource, sealedSecret: string): Promise<Webhook> {
  const row = await db
    .insertInto("webhooks")
    .values({
      id,
      company_id: companyId,
      url: fields.url,
      description: fields.description,
      event_types: fields.eventTypes,
      game_ids: fields.gameIds,
      enabled: fields.enabled,
      source,
      secret_sealed: sealedSecret,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWebhook(row);
}

/** The company's rule-calls subscription (source 'rules', no URL or event type of its own); nothing when it has one. */
export async function insertRuleCallsWebhook(db: Db, id: string, companyId: string, sealedSecret: string): Promise<void> {
  await db
    .insertInto("webhooks")
    .values({ id, company_id: companyId, url: "", description: "Rules' callWebhook actions", event_types: [], game_ids: [], enabled: true, source: "rules", secret_sealed: sealedSecret })
    .onConflict((oc) => oc.column("company_id").where("source", "=", "rules").doNothing())
    .execute();
}

export async function findWebhook(db: Db, companyId: string, id: string, options: { lock?: boolean } = {}): Promise<Webhook | undefined> {
  let query = db.selectFrom("webhooks").selectAll().where("id", "=", id).where("company_id", "=", companyId);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toWebhook(row);
}

export async function listWebhooks(db: Db, companyId: string, options: { source?: WebhookSource; lock?: boolean } = {}): Promise<Webhook[]> {
  let query = db.selectFrom("webhooks").selectAll().where("company_id", "=", companyId);
  // The rule calls' subscription is not one the studio made.
  query = options.source ? query.where("source", "=", options.source) : query.where("source", "<>", "rules");
  query = query.orderBy("created_at").orderBy("id");
  if (options.lock) query = query.forUpdate();
  return (await query.execute()).map(toWebhook);
}

/** The company's enabled subscriptions (event fan-out). */
export type Subscription = Pick<Webhook, "id" | "enabled" | "eventTypes" | "gameIds">;

/**
 * What the fan-out of every event reads of the company's enabled subscriptions: only what decides
 * who gets it (a statement with named columns is also prepared once per connection).
 */
export async function listEnabledSubscriptions(db: Db, companyId: string): Promise<Subscription[]> {
  const rows = await db
    .selectFrom("webhooks")
    .select(["id", "enabled", "event_types", "game_ids"])
    .where("company_id", "=", companyId)
    .where("enabled", "=", true)
    .where("source", "<>", "rules")
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({ id: row.id, enabled: row.enabled, eventTypes: row.event_types, gameIds: row.game_ids }));
}

export interface WebhookChanges {
  url?: string;
  description?: string;
  eventTypes?: string[];
  gameIds?: string[];
  enabled?: boolean;
  disabledReason?: string | null;
  failingSince?: Date | null;
}

export async function updateWebhook(db: Db, id: string, changes: WebhookChanges, now: Date): Promise<Webhook> {
  const row = await db
    .updateTable("webhooks")
    .set({
      ...(changes.url !== undefined ? { url: changes.url } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.eventTypes !== undefined ? { event_types: changes.eventTypes } : {}),
      ...(changes.gameIds !== undefined ? { game_ids: changes.gameIds } : {}),
      ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      ...(changes.disabledReason !== undefined ? { disabled_reason: changes.disabledReason } : {}),
      ...(changes.failingSince !== undefined ? { failing_since: changes.failingSince } : {}),
      updated_at: now,
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWebhook(row);
}

export async function deleteWebhook(db: Db, companyId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("webhooks").where("id", "=", id).where("company_id", "=", companyId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function readSecrets(db: Db, id: string): Promise<SealedSecrets | undefined> {
  const row = await db
    .selectFrom("webhooks")
    .select(["secret_sealed", "previous_secret_sealed", "previous_secret_expires_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  return row && { secret: row.secret_sealed, previous: row.previous_secret_sealed, previousExpiresAt: row.previous_secret_expires_at };
}

export async function replaceSecret(db: Db, id: string, sealedSecret: string, sealedPrevious: string, previousExpiresAt: Date, now: Date): Promise<Webhook> {
  const row = await db
    .updateTable("webhooks")
    .set({ secret_sealed: sealedSecret, previous_secret_sealed: sealedPrevious, previous_secret_expires_at: previousExpiresAt, updated_at: now })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWebhook(row);
}

/** Records a failed attempt: the run of failures starts now unless one is under way. */
export async function markFailing(db: Db, id: string, now: Date): Promise<Webhook | undefined> {
  const row = await db
    .updateTable("webhooks")
    .set((eb) => ({ failing_since: eb.fn.coalesce("failing_since", eb.val(now)) }))
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row && toWebhook(row);
}

export async function clearFailing(db: Db, id: string): Promise<void> {
  await db.updateTable("webhooks").set({ failing_since: null }).where("id", "=", id).where("failing_since", "is not", null).execute();
}
